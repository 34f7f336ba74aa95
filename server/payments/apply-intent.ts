import type { DbTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import type { CheckoutState, IntentState } from "./processors/types";
import { appendPaymentEvent, EVENT_OF_STATUS } from "./payment-events";
import type { PaymentStatus } from "./payment-schema";
import {
  INCOMPLETE_AUTHORIZATION,
  paymentInclude,
  REFUND_FAILED,
  type PaymentRow,
} from "./present-payment";

/**
 * Card authorizations lapse about 7 days after they are placed (Stripe cancels them): the hold's
 * expiry when the processor does not give its own capture deadline (`IntentState.captureBefore`).
 */
export const HOLD_LIFETIME_MS = 7 * 86_400_000;

/** What a read of the processor showed. */
export type Observed = { checkout: CheckoutState | null; intent: IntentState | null };

type Change = { data: Prisma.PaymentUpdateInput; passed: PaymentStatus[] };

/**
 * The one path every processor observation takes into a payment (a call's answer, a read on
 * GET, a webhook's job, the simulator page, the sweeps), under the payment's lock. The decision
 * comes from the processor's state, never from a redirect or a webhook payload, and a payment
 * only moves forward: a late or repeated observation of an older state changes nothing, so a
 * webhook delivered twice or out of order changes nothing twice. Appends the events of the
 * statuses passed, and settles in-flight attempts the observation proves done.
 */
export async function applyObserved(
  tx: DbTx,
  payment: PaymentRow,
  observed: Observed,
  now = new Date(),
): Promise<PaymentRow> {
  const intentRef = observed.intent?.intentRef ?? observed.checkout?.intentRef ?? null;
  const change = decide(payment, observed, now);
  const learnsIntent = intentRef !== null && payment.processorIntentRef === null;
  if (!change && !learnsIntent) return payment;
  const data: Prisma.PaymentUpdateInput = {
    ...(learnsIntent && { processorIntentRef: intentRef }),
    ...change?.data,
  };
  const updated = await tx.payment.update({
    where: { id: payment.id },
    data,
    include: paymentInclude,
  });
  if (!change) return updated;
  const proven = provenKinds(change.data.status as PaymentStatus | undefined);
  if (proven.length > 0)
    await tx.paymentAttempt.updateMany({
      where: {
        paymentId: payment.id,
        kind: { in: proven },
        status: { in: ["pending", "unknown"] },
      },
      data: { status: "succeeded", completedAt: now, response: { reconciled_by: "read" } },
    });
  const current = proven.length
    ? await tx.payment.findUniqueOrThrow({ where: { id: payment.id }, include: paymentInclude })
    : updated;
  for (const status of change.passed) {
    const type = EVENT_OF_STATUS[status];
    if (type) await appendPaymentEvent(tx, type, current);
  }
  if (change.data.reconciliationReason === INCOMPLETE_AUTHORIZATION)
    await appendPaymentEvent(tx, "payment.reconciliation_required", current);
  return current;
}

/** In-flight attempts a new status proves succeeded (the answer was lost, the read shows it). */
function provenKinds(status: PaymentStatus | undefined): string[] {
  if (status === "captured") return ["capture"];
  if (status === "released") return ["release"];
  if (status === "refunded") return ["capture", "refund"];
  return [];
}

function decide(payment: PaymentRow, observed: Observed, now: Date): Change | null {
  const status = payment.status as PaymentStatus;
  const intent = observed.intent;
  const checkoutExpired = observed.checkout?.status === "expired";
  const open = status === "pending";
  if (!intent) return open && checkoutExpired ? failed(payment) : null;
  switch (intent.status) {
    case "requires_capture": {
      if (!open) return null;
      const full =
        intent.currency.toLowerCase() === "usd" &&
        intent.amountCapturableMinor === payment.amountMinor;
      if (full)
        return {
          data: {
            status: "authorized",
            authorizedAt: now,
            expiresAt: intent.captureBefore ?? new Date(now.getTime() + HOLD_LIFETIME_MS),
            needsReconciliation: false,
            reconciliationReason: null,
          },
          passed: ["authorized"],
        };
      if (payment.reconciliationReason === INCOMPLETE_AUTHORIZATION) return null;
      return {
        data: { needsReconciliation: true, reconciliationReason: INCOMPLETE_AUTHORIZATION },
        passed: [],
      };
    }
    case "succeeded": {
      const received = intent.amountReceivedMinor;
      const refundedAll = received > 0 && intent.amountRefundedMinor >= received;
      const notYetCaptured = ["pending", "authorized", "capturing", "expired"].includes(status);
      if (notYetCaptured) {
        const captured = { status: "captured", capturedMinor: received, capturedAt: now };
        if (!refundedAll) return { data: captured, passed: ["captured"] };
        return {
          data: { ...captured, ...refunded(payment, received, now) },
          passed: ["captured", "refunded"],
        };
      }
      if ((status === "captured" || status === "refunding") && refundedAll)
        return { data: refunded(payment, intent.amountRefundedMinor, now), passed: ["refunded"] };
      return null;
    }
    case "canceled": {
      if (open) return failed(payment);
      if (status === "releasing")
        return { data: { status: "released", releasedAt: now }, passed: ["released"] };
      if (status === "authorized" || status === "capturing") {
        if (intent.canceledReason === "automatic")
          return { data: { status: "expired" }, passed: ["expired"] };
        return { data: { status: "released", releasedAt: now }, passed: ["released"] };
      }
      return null;
    }
    case "requires_action":
    case "requires_confirmation":
    case "processing": {
      if (open && checkoutExpired) return failed(payment);
      // The payer began to pay but nothing is held yet (3-D Secure unfinished, a payment still
      // processing), even when the checkout says complete: it funds nothing until it is held.
      if (!open || payment.reconciliationReason === INCOMPLETE_AUTHORIZATION) return null;
      return {
        data: { needsReconciliation: true, reconciliationReason: INCOMPLETE_AUTHORIZATION },
        passed: [],
      };
    }
    case "requires_payment_method": {
      if (open && checkoutExpired) return failed(payment);
      // The payer's authentication failed: the checkout takes payment again, nothing to reconcile.
      if (!open || payment.reconciliationReason !== INCOMPLETE_AUTHORIZATION) return null;
      return { data: { needsReconciliation: false, reconciliationReason: null }, passed: [] };
    }
    default:
      return open && checkoutExpired ? failed(payment) : null;
  }
}

/** A failed payment has nothing left to reconcile of an incomplete authorization. */
const failed = (payment: PaymentRow): Change => ({
  data: {
    status: "failed",
    ...(payment.reconciliationReason === INCOMPLETE_AUTHORIZATION && {
      needsReconciliation: false,
      reconciliationReason: null,
    }),
  },
  passed: ["failed"],
});
/** A refund that succeeded again after one failed leaves nothing of that to reconcile. */
const refunded = (payment: PaymentRow, amount: number, now: Date) => ({
  status: "refunded",
  refundedMinor: amount,
  refundedAt: now,
  ...(payment.reconciliationReason === REFUND_FAILED && {
    needsReconciliation: false,
    reconciliationReason: null,
  }),
});
