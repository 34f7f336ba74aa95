"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { Badge, Button, Card, QueryState, SelectField, when } from "../ui";
import { money } from "../money";
import { PaymentActions, PlainError } from "./payment-actions";
import { PaymentHistory } from "./payment-history";
import { SessionLink } from "../links";

type Bill = V1["getBill"];
type Payment = V1["getPayment"];

/** Statuses a processor call or the payer may still move; the page reads them again. */
const MOVING = ["pending", "capturing", "releasing", "refunding"];

/** The bill's payment: its state, what happens next, the actions, and its history. */
export function BillPayment({ tenantId, bill }: { tenantId: number; bill: Bill }) {
  return (
    <Card title="Payment" testId="bill-payment">
      <span id="payment" />
      {bill.settlement_owner === "external" && bill.session_id ? (
        <p className="text-sm" data-testid="external-settlement">
          Settled outside this service by charging session{" "}
          <SessionLink tenantId={tenantId} id={bill.session_id} />: the application takes the
          payment and reports it on the session&apos;s page, so no payment is taken here.
        </p>
      ) : bill.payment ? (
        <PaymentDetail tenantId={tenantId} bill={bill} paymentId={bill.payment.id} />
      ) : (
        <TakePayment tenantId={tenantId} bill={bill} />
      )}
    </Card>
  );
}

function PaymentDetail({
  tenantId,
  bill,
  paymentId,
}: {
  tenantId: number;
  bill: Bill;
  paymentId: string;
}) {
  const trpc = useTRPC();
  // A read reconciles a pending or in-flight payment with the processor (GET …/payments/<id>).
  const payment = useQuery(
    trpc.v1.getPayment.queryOptions(
      { params: { tenant_id: tenantId, payment_id: paymentId } },
      {
        refetchInterval: (q) => (MOVING.includes(q.state.data?.status ?? "") ? 2_000 : false),
      },
    ),
  );
  return (
    <QueryState query={payment}>
      {(p) => (
        <>
          <PaymentFacts payment={p} />
          <PaymentActions tenantId={tenantId} bill={bill} payment={p} />
          <PaymentHistory tenantId={tenantId} payment={p} />
        </>
      )}
    </QueryState>
  );
}

function PaymentFacts({ payment: p }: { payment: Payment }) {
  const next = p.next_action;
  const rows: [string, React.ReactNode][] = [
    ["Payment", <code key="id">{p.id}</code>],
    ["Service", p.service],
    ["Status", <Badge key="s" value={p.status} testId="payment-status" />],
    ["Held", money(p.amount_minor, p.currency)],
    [
      "Captured",
      <span key="c" data-testid="payment-captured">
        {money(p.captured_minor, p.currency)}
      </span>,
    ],
    [
      "Refunded",
      <span key="r" data-testid="payment-refunded">
        {money(p.refunded_minor, p.currency)}
      </span>,
    ],
    ["Hold expires", when(p.expires_at)],
    [
      "Needs reconciliation",
      <span key="n" data-testid="payment-reconciliation">
        {p.needs_reconciliation ? `yes: ${p.reconciliation_reason ?? "reason not recorded"}` : "no"}
      </span>,
    ],
  ];
  if (next)
    rows.push([
      "Next",
      next.type === "redirect" ? (
        <a
          key="next"
          href={next.url}
          data-testid="checkout-link"
          className="font-medium text-teal-800 underline dark:text-teal-300"
        >
          Open the checkout page
        </a>
      ) : (
        <span key="next" data-testid="reconcile-reason">
          Reconcile with the processor: {next.reason.replaceAll("_", " ")}
        </span>
      ),
    ]);
  return (
    <dl className="grid max-w-xl grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-slate-500">{label}</dt>
          <dd className="break-words">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Opens the bill's one payment on a service `GET …/payment-services` says the project can use
 * (an unavailable one is shown with its reason); the payer is sent back to this page.
 */
function TakePayment({ tenantId, bill }: { tenantId: number; bill: Bill }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const services = useQuery(
    trpc.v1.listPaymentServices.queryOptions({ params: { tenant_id: tenantId } }),
  );
  const authorize = useV1Mutation(trpc.v1.authorizePayment);
  const [service, setService] = useState<"simulator" | "card" | "">("");
  const list = services.data?.data ?? [];
  const usable = (s: string) =>
    list.some((x) => x.service === s && x.available) &&
    !(s === "simulator" && bill.source !== "simulated");
  const chosen = service || (list.find((s) => usable(s.service))?.service ?? "");
  const denied = project.denied("billing:write");
  return (
    <div data-testid="take-payment">
      <p className="mb-3 text-sm">No payment for this bill yet.</p>
      <QueryState query={services}>
        {(d) => (
          <form
            className="grid max-w-md gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              if (!chosen) return;
              void authorize
                .run({
                  params: { tenant_id: tenantId },
                  body: {
                    bill_id: bill.id,
                    service: chosen,
                    return_url: `${window.location.origin}/console/t/${tenantId}/bills/${bill.id}`,
                  },
                  idempotencyKey: newRequestKey(),
                })
                .catch(() => undefined);
            }}
          >
            <SelectField
              label="Payment service"
              value={chosen}
              onChange={(e) => setService(e.target.value === "card" ? "card" : "simulator")}
            >
              {d.data.map((s) => (
                <option key={s.service} value={s.service} disabled={!usable(s.service)}>
                  {s.service === "card" ? "Card (Stripe)" : "Simulator"}
                  {usable(s.service) ? "" : " (not available)"}
                </option>
              ))}
            </SelectField>
            <ul
              className="text-xs text-slate-600 dark:text-slate-400"
              data-testid="service-reasons"
            >
              {d.data.map((s) =>
                usable(s.service) ? null : (
                  <li key={s.service}>
                    {s.service}:{" "}
                    {s.reason ??
                      "The simulator settles simulated bills only; use card for a charger's bill."}
                  </li>
                ),
              )}
            </ul>
            <div>
              <Button
                type="submit"
                variant="primary"
                disabledReason={denied ?? (chosen ? null : "No payment service is available.")}
                disabled={authorize.isPending}
              >
                Take payment
              </Button>
            </div>
            {authorize.error ? <PlainError error={authorize.error} /> : null}
          </form>
        )}
      </QueryState>
    </div>
  );
}
