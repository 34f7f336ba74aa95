"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { V1 } from "../hooks";
import { useTRPC } from "../trpc";
import { Badge, Card, PageHeader, QueryState, Table, isRecord, td, when } from "../ui";
import { FinalizeBill } from "./bill-finalize";
import {
  PaymentLink,
  SessionLink,
  StationLink,
  TariffLink,
  TransactionLink,
  useStationZone,
} from "../links";
import { BillPayment } from "./bill-payment";
import { money } from "../money";

type Bill = V1["getBill"];

const DIMENSIONS: Record<string, string> = {
  energy: "Energy",
  time: "Charging time",
  parking_time: "Idle time",
  flat: "Session fee",
  reservation: "Reservation",
  reservation_fee: "Reservation fee",
};

export function BillPage({ tenantId, billId }: { tenantId: number; billId: string }) {
  const trpc = useTRPC();
  const bill = useQuery(
    trpc.v1.getBill.queryOptions(
      { params: { tenant_id: tenantId, bill_id: billId } },
      {
        refetchInterval: (q) =>
          q.state.data?.status === "final" || q.state.data?.status === "canceled" ? false : 5_000,
      },
    ),
  );
  return (
    <>
      <PageHeader
        title={`Bill ${billId}`}
        description={
          <Link href={`/console/t/${tenantId}/bills`} className="underline">
            All bills
          </Link>
        }
      />
      <QueryState query={bill}>
        {(b) => (
          <>
            <Facts tenantId={tenantId} bill={b} />
            <FinalizeBill tenantId={tenantId} bill={b} />
            <Cost bill={b} />
            <BillPayment tenantId={tenantId} bill={b} />
          </>
        )}
      </QueryState>
    </>
  );
}

function Facts({ tenantId, bill }: { tenantId: number; bill: Bill }) {
  const zone = useStationZone(tenantId, bill.station_id);
  const rows: [string, React.ReactNode][] = [
    ["Status", <Badge key="s" value={bill.status} testId="bill-status" />],
    ["Source", bill.source],
    ["Station", <StationLink key="st" tenantId={tenantId} stationId={bill.station_id} />],
    ["Connector", bill.connector_id],
    [
      "Tariff",
      <span key="tf">
        <TariffLink tenantId={tenantId} tariffId={bill.tariff_id} version={bill.tariff_version} /> (
        {bill.billing_version})
      </span>,
    ],
    [
      "Settled by",
      <span key="so" data-testid="bill-settled-by">
        {bill.settlement_owner === "external" && bill.session_id ? (
          <>
            charging session <SessionLink tenantId={tenantId} id={bill.session_id} /> (the
            application takes the payment)
          </>
        ) : bill.payment ? (
          <>
            payment <PaymentLink tenantId={tenantId} billId={bill.id} id={bill.payment.id} /> (
            {bill.payment.status})
          </>
        ) : (
          "a payment taken on this page (none yet)"
        )}
      </span>,
    ],
    [
      "Hold",
      bill.status === "canceled"
        ? `${money(bill.hold_minor, bill.currency)}, released (the session was canceled before it started)`
        : money(bill.hold_minor, bill.currency),
    ],
    [
      "Transaction",
      bill.transaction_id ? (
        <TransactionLink key="tx" tenantId={tenantId} id={bill.transaction_id} />
      ) : (
        "—"
      ),
    ],
    ["Stop reason", bill.stop_reason ?? "—"],
    [
      "Live cap",
      bill.cap_attempts === 0
        ? "—"
        : `${bill.cap_attempts} call${bill.cap_attempts === 1 ? "" : "s"} to stop the charger (latest ${bill.stop_operation_id ?? "—"})`,
    ],
    [
      "Reconciliation",
      bill.needs_reconciliation ? (
        <span key="r" data-testid="bill-reconciliation" className="text-red-700 dark:text-red-300">
          Needed: the running cost passed the hold
          {bill.hold_exceeded_at ? ` at ${when(bill.hold_exceeded_at, zone)}` : ""}, so the hold
          cannot pay it all; settle it with the driver.
        </span>
      ) : (
        "—"
      ),
    ],
    [
      "Running cost",
      bill.running_cost_minor === null ? "—" : money(bill.running_cost_minor, bill.currency),
    ],
    ["Created", when(bill.created_at, zone)],
    ["Finalized", bill.finalized_at ? when(bill.finalized_at, zone) : "—"],
  ];
  return (
    <Card title="Bill">
      <dl className="grid max-w-xl grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-slate-500">{label}</dt>
            <dd className="break-words">{value}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

/** The final amount, in the engine's words and in numbers: dimensions, adjustments, total. */
function Cost({ bill }: { bill: Bill }) {
  if (bill.total_minor === null) {
    return (
      <Card title="Cost">
        <p className="text-sm">
          {bill.status === "canceled"
            ? "Canceled: the session never charged, so nothing is owed."
            : "Not final yet: the amount is fixed when the bill is finalized."}
        </p>
      </Card>
    );
  }
  const dimensions = isRecord(bill.cost_breakdown?.dimensions)
    ? bill.cost_breakdown.dimensions
    : {};
  const lines = Object.entries(dimensions).flatMap(([name, cost]) =>
    isRecord(cost) && typeof cost.excl_vat_minor === "number" && cost.excl_vat_minor !== 0
      ? [[DIMENSIONS[name] ?? name, cost.excl_vat_minor] as const]
      : [],
  );
  const a = bill.adjustments;
  return (
    <Card title="Cost" testId="bill-cost">
      {bill.price_summary ? (
        <p className="mb-3" data-testid="price-summary">
          {bill.price_summary}
        </p>
      ) : null}
      <Table head={["", "Amount"]}>
        {bill.energy_kwh !== null ? (
          <tr>
            <td className={td}>Energy delivered</td>
            <td className={td}>{bill.energy_kwh} kWh</td>
          </tr>
        ) : null}
        {lines.map(([label, minor]) => (
          <tr key={label}>
            <td className={td}>{label} (excl. VAT)</td>
            <td className={td}>{money(minor, bill.currency)}</td>
          </tr>
        ))}
        <tr>
          <td className={td}>Priced total incl. VAT</td>
          <td className={td}>
            {bill.subtotal_minor === null ? "—" : money(bill.subtotal_minor, bill.currency)}
          </td>
        </tr>
        {a?.group_discount ? (
          <tr>
            <td className={td}>Group discount “{a.group_discount.reference}”</td>
            <td className={td}>−{money(a.group_discount.discount_minor, bill.currency)}</td>
          </tr>
        ) : null}
        {a?.merchant_validation ? (
          <tr>
            <td className={td}>Merchant validation “{a.merchant_validation.reference}”</td>
            <td className={td}>−{money(a.merchant_validation.discount_minor, bill.currency)}</td>
          </tr>
        ) : null}
        {a?.cost_cap && a.cost_cap.reduction_minor > 0 ? (
          <tr>
            <td className={td}>Session cost cap {money(a.cost_cap.cap_minor, bill.currency)}</td>
            <td className={td}>−{money(a.cost_cap.reduction_minor, bill.currency)}</td>
          </tr>
        ) : null}
        <tr className="font-semibold">
          <td className={td}>Final amount</td>
          <td className={td} data-testid="bill-total">
            {money(bill.total_minor, bill.currency)}
          </td>
        </tr>
      </Table>
    </Card>
  );
}
