import type { V1 } from "../hooks";
import { apiError } from "../ui";
import { usd } from "./bills";

type Bill = V1["getBill"];
type Payment = V1["getPayment"];
export type PaymentAction = "capture" | "release" | "refund";

/**
 * The payments API's refusals in plain words. The same text is a disabled button's reason (when
 * the console can see the rule) and the message of the API's 409 (when it cannot, or the page was
 * out of date), so a person reads one explanation either way.
 */
export const PLAIN: Record<string, string> = {
  bill_not_final: "The bill is not final yet: finalize it first, then capture its final amount.",
  bill_exceeds_hold:
    "The final bill is above the hold, so the hold cannot pay it: reconcile with the driver instead.",
  hold_in_use:
    "The bill is using this hold (a start is being sent, the session is charging or has ended, or the final bill has an amount): capture it rather than release it.",
  payment_not_authorized:
    "The payment holds no authorized amount (any more), so there is nothing to capture or release.",
  payment_not_captured: "Only a captured payment can be refunded.",
  payment_exists: "This bill already has a payment.",
  simulator_not_allowed:
    "The simulator settles simulated bills only; use card for a charger's bill.",
  payment_service_unavailable: "Card payments are not configured on this service.",
  payment_account_not_ready:
    "The project's Stripe account is not connected and able to take charges (see Payment account).",
  bill_externally_settled: "This bill is settled outside the service.",
};

/** A refused call in plain words: the table above, else the API's own message. */
export function plainError(error: unknown): { text: string; code: string | null } {
  const body = apiError(error);
  if (!body)
    return { text: error instanceof Error ? error.message : "Something went wrong.", code: null };
  return { text: PLAIN[body.code] ?? body.message, code: body.code };
}

/**
 * Why each action cannot be used now, by the rules of the payments routes as far as the page can
 * see them (null: allowed). `denied` answers the role's scope. What the page cannot see (a start
 * still being dispatched, a change by someone else) the API still refuses, and the page shows it.
 */
export function actionReasons(
  bill: Bill,
  payment: Payment,
  denied: (scope: "billing:write" | "billing:refund") => string | null,
): Record<PaymentAction, string | null> {
  const authorized =
    payment.status !== "authorized"
      ? `The payment is ${payment.status}: only an authorized hold is captured or released.`
      : payment.needs_reconciliation
        ? `The payment must be reconciled with the processor first (${payment.reconciliation_reason ?? "unknown outcome"}).`
        : null;
  const total = bill.total_minor;
  const capture =
    denied("billing:write") ??
    authorized ??
    (bill.status !== "final" || total === null
      ? PLAIN.bill_not_final!
      : total > payment.amount_minor
        ? PLAIN.bill_exceeds_hold!
        : null);
  const inUse =
    bill.status === "charging" ||
    bill.status === "ended" ||
    (bill.status === "final" && (total ?? 0) > 0);
  const release = denied("billing:write") ?? authorized ?? (inUse ? PLAIN.hold_in_use! : null);
  const refund =
    denied("billing:refund") ??
    (payment.status === "captured"
      ? null
      : `The payment is ${payment.status}: ${PLAIN.payment_not_captured}`);
  return { capture, release, refund };
}

/** What a confirmed action will do, with the amounts, for its confirmation dialog. */
export function consequence(action: PaymentAction, bill: Bill, payment: Payment): string {
  const hold = usd(payment.amount_minor);
  if (action === "release")
    return `The ${hold} hold is freed on the payer's card; nothing is charged. This cannot be undone.`;
  if (action === "refund")
    return `${usd(payment.captured_minor)} is refunded to the payer in full. A payment is refunded once; this cannot be undone.`;
  const total = bill.total_minor ?? 0;
  return total === 0
    ? `The final bill is $0.00, so nothing is charged: the ${hold} hold is released instead.`
    : `${usd(total)}, the final bill, is charged from the ${hold} hold; the remaining ${usd(payment.amount_minor - total)} is released.`;
}
