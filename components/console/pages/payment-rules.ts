import type { V1 } from "../hooks";
import { apiError } from "../ui";
import { money } from "../money";

type Bill = V1["getBill"];
type Payment = V1["getPayment"];
export type PaymentAction = "capture" | "release" | "refund";

/** Statuses no action moves any more. */
export const SETTLED = ["released", "refunded", "failed", "expired"];

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
  payment_already_captured:
    "This payment was already captured (a payment is captured once): nothing more was charged.",
  payment_already_released:
    "This payment's hold was already released: there is nothing left to capture or release.",
  payment_already_refunded:
    "This payment was already refunded in full (a payment is refunded once): nothing more was refunded.",
  payment_change_in_progress:
    "A capture, release or refund of this payment is still in progress: wait for its outcome on this page rather than asking again.",
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

export type ActionRule = {
  /** why the action cannot be used at all (the role's scope, the payment's own status): disabled */
  blocked: string | null;
  /** why the API will refuse it now by the bill's state as last read: said, but left to the API */
  refusal: string | null;
};

/**
 * Each action by the payments routes' rules, as far as the page can see them. The payment's
 * status and the role's scopes block an action. The bill's state only predicts a refusal: the
 * bill moves under the page (finalized through the API, a charger starting or stopping; the page
 * reads it every few seconds) and the API decides on it under the bill's lock, so the action is
 * left to the API, which answers with the same plain words.
 */
export function actionRules(
  bill: Bill,
  payment: Payment,
  denied: (scope: "billing:write" | "billing:refund") => string | null,
): Record<PaymentAction, ActionRule> {
  const authorized =
    payment.status !== "authorized"
      ? `The payment is ${payment.status}: only an authorized hold is captured or released.`
      : payment.needs_reconciliation
        ? `The payment must be reconciled with the processor first (${payment.reconciliation_reason ?? "unknown outcome"}).`
        : null;
  const total = bill.total_minor;
  const inUse =
    bill.status === "charging" ||
    bill.status === "ended" ||
    (bill.status === "final" && (total ?? 0) > 0);
  return {
    capture: {
      blocked: denied("billing:write") ?? authorized,
      refusal:
        bill.status !== "final" || total === null
          ? PLAIN.bill_not_final!
          : total > payment.amount_minor
            ? PLAIN.bill_exceeds_hold!
            : null,
    },
    release: {
      blocked: denied("billing:write") ?? authorized,
      refusal: inUse ? PLAIN.hold_in_use! : null,
    },
    refund: {
      blocked:
        denied("billing:refund") ??
        (payment.status === "captured"
          ? null
          : `The payment is ${payment.status}: only a captured payment can be refunded.`),
      refusal: null,
    },
  };
}

/** What a confirmed action will do, with the amounts, for its confirmation dialog. */
export function consequence(action: PaymentAction, bill: Bill, payment: Payment): string {
  const hold = money(payment.amount_minor, payment.currency);
  if (action === "release")
    return `The ${hold} hold is freed on the payer's card; nothing is charged. This cannot be undone.`;
  if (action === "refund")
    return `${money(payment.captured_minor, payment.currency)} is refunded to the payer in full. A payment is refunded once; this cannot be undone.`;
  const total = bill.total_minor;
  if (total === null)
    return `The bill's final amount, once it is fixed, is charged from the ${hold} hold and the rest is released.`;
  return total === 0
    ? `The final bill is $0.00, so nothing is charged: the ${hold} hold is released instead.`
    : `${money(total, payment.currency)}, the final bill, is charged from the ${hold} hold; the remaining ${money(payment.amount_minor - total, payment.currency)} is released.`;
}
