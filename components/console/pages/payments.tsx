"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { BillLink, PaymentLink } from "../links";
import { useState } from "react";
import { PAYMENT_STATUSES } from "@/server/payments/payment-schema";
import { ExportCsv, type CsvColumn } from "../csv";
import type { V1, V1Input } from "../hooks";
import { useTRPC } from "../trpc";
import { Badge, Empty, PageHeader, QueryState, SelectField, Table, oneOf, td, when } from "../ui";
import { StringPager } from "../pager";
import { money } from "../money";

const STATUSES = ["", ...PAYMENT_STATUSES] as const;
const SERVICES = ["", "simulator", "card"] as const;

type Payment = V1["listPayments"]["data"][number];

/** The status as the table says it, with the reason to reconcile when there is one. */
const paymentStatus = (p: Payment) =>
  p.needs_reconciliation ? `${p.status} (reconcile: ${p.reconciliation_reason})` : p.status;

/** The table's columns for its CSV export. */
const paymentColumns: CsvColumn<Payment>[] = [
  { header: "Payment", value: (p) => p.id },
  { header: "Bill", value: (p) => p.bill_id },
  { header: "Service", value: (p) => p.service },
  { header: "Status", value: (p) => paymentStatus(p) },
  { header: "Held", value: (p) => money(p.amount_minor, p.currency) },
  { header: "Captured", value: (p) => money(p.captured_minor, p.currency) },
  { header: "Refunded", value: (p) => money(p.refunded_minor, p.currency) },
  { header: "Created", value: (p) => p.created_at },
];

/** The project's payments as last recorded (a bill's page reads one again from the processor). */
export function PaymentsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState<string[]>([]);
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("");
  const [service, setService] = useState<(typeof SERVICES)[number]>("");
  const after = cursors[cursors.length - 1];
  const input = (after: string | undefined, limit: number): V1Input["listPayments"] => ({
    params: { tenant_id: tenantId },
    query: {
      limit,
      ...(after ? { after } : {}),
      ...(status ? { status } : {}),
      ...(service ? { service } : {}),
    },
  });
  const payments = useQuery(
    trpc.v1.listPayments.queryOptions(input(after, 25), { refetchInterval: 5_000 }),
  );
  const client = useQueryClient();
  return (
    <>
      <PageHeader
        title="Payments"
        description="Each bill's one payment: the hold, what was captured and refunded. Newest first; open the bill to act on it."
        actions={
          <ExportCsv
            filename={`payments-${tenantId}.csv`}
            columns={paymentColumns}
            load={(after: string | undefined) =>
              client.fetchQuery(trpc.v1.listPayments.queryOptions(input(after, 100)))
            }
          />
        }
      />
      <div className="mb-4 grid max-w-xl gap-3 sm:grid-cols-2">
        <SelectField
          label="Status"
          value={status}
          onChange={(e) => {
            setStatus(oneOf(STATUSES, e.target.value, ""));
            setCursors([]);
          }}
        >
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s === "" ? "All" : s}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Service"
          value={service}
          onChange={(e) => {
            setService(oneOf(SERVICES, e.target.value, ""));
            setCursors([]);
          }}
        >
          <option value="">All</option>
          <option value="simulator">Simulator</option>
          <option value="card">Card (Stripe)</option>
        </SelectField>
      </div>
      <QueryState
        query={payments}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No payments" />}
      >
        {(d) => (
          <>
            <Table
              head={[
                "Payment",
                "Bill",
                "Service",
                "Status",
                "Held",
                "Captured",
                "Refunded",
                "Created",
              ]}
              label="Payments"
            >
              {d.data.map((p) => (
                <tr key={p.id} data-testid="payment-row">
                  <td className={td}>
                    <PaymentLink tenantId={tenantId} billId={p.bill_id} id={p.id} />
                  </td>
                  <td className={td}>
                    <BillLink tenantId={tenantId} id={p.bill_id} />
                  </td>
                  <td className={td}>{p.service}</td>
                  <td className={td}>
                    <Badge value={p.status} />
                    {p.needs_reconciliation ? (
                      <span className="ml-1 text-xs">(reconcile: {p.reconciliation_reason})</span>
                    ) : null}
                  </td>
                  <td className={td}>{money(p.amount_minor, p.currency)}</td>
                  <td className={td}>{money(p.captured_minor, p.currency)}</td>
                  <td className={td}>{money(p.refunded_minor, p.currency)}</td>
                  <td className={td}>{when(p.created_at)}</td>
                </tr>
              ))}
            </Table>
            <StringPager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </>
  );
}
