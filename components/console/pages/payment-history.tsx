"use client";

import { useQuery } from "@tanstack/react-query";
import type { V1 } from "../hooks";
import { useTRPC } from "../trpc";
import { Badge, Table, errorMessage, td, when } from "../ui";
import { money } from "../money";

type Payment = V1["getPayment"];

type Line = { at: string; order: number; what: string; status: string; detail: string };

const KIND_TEXT: Record<string, string> = {
  authorize: "Authorization call",
  capture: "Capture call",
  release: "Release call",
  refund: "Refund call",
  read: "Read",
};

/**
 * The payment's history, oldest first: each processor call of its journal (`attempts`, with the
 * idempotency key it used and how it ended) and each event the payment emitted, by time.
 */
export function PaymentHistory({ tenantId, payment }: { tenantId: number; payment: Payment }) {
  const trpc = useTRPC();
  const events = useQuery(
    trpc.v1.listEvents.queryOptions({
      params: { tenant_id: tenantId },
      query: { resource_id: payment.id, limit: 100 },
    }),
  );
  const lines: Line[] = [
    {
      at: payment.created_at,
      order: 0,
      what: "Payment created",
      status: "",
      detail: `hold ${money(payment.amount_minor, payment.currency)}`,
    },
    ...payment.attempts.map((a, i) => ({
      at: a.created_at,
      order: 1 + i,
      what: KIND_TEXT[a.kind] ?? a.kind,
      status: a.status,
      detail: [
        a.amount_minor === null ? null : money(a.amount_minor, payment.currency),
        a.completed_at ? `done ${when(a.completed_at)}` : null,
        a.error ? `${a.error.code ?? a.error.kind}: ${a.error.message}` : null,
        `key ${a.id}`,
      ]
        .filter(Boolean)
        .join(" · "),
    })),
    ...(events.data?.data ?? []).map((e) => ({
      at: e.created_at,
      order: 1000 + e.sequence,
      what: `Event ${e.type}`,
      status: "",
      detail: `#${e.sequence}`,
    })),
  ].sort((a, b) => a.at.localeCompare(b.at) || a.order - b.order);
  return (
    <div className="mt-4" data-testid="payment-history">
      <h3 className="mb-2 font-semibold">History</h3>
      <Table head={["Time", "What", "Outcome", "Detail"]} label="Payment history">
        {lines.map((l) => (
          <tr key={`${l.order}-${l.at}`} data-testid="payment-history-row">
            <td className={`${td} whitespace-nowrap`}>{when(l.at)}</td>
            <td className={td}>{l.what}</td>
            <td className={td}>{l.status ? <Badge value={l.status} /> : null}</td>
            <td className={`${td} min-w-48 break-words`}>{l.detail}</td>
          </tr>
        ))}
      </Table>
      {events.error ? (
        <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
          Events not shown: {errorMessage(events.error)}
        </p>
      ) : null}
    </div>
  );
}
