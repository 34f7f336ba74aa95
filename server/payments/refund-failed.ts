import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import type { Prisma } from "../generated/prisma/client";
import { lockPayment } from "./lock-payment";
import { appendPaymentEvent } from "./payment-events";
import { cardProcessor } from "./processors";
import { paymentInclude, REFUND_FAILED } from "./present-payment";
import { merchantOf } from "./sync-payment";

/**
 * Stripe's `refund.failed` and `charge.refund.updated`: a refund Stripe accepted may fail later
 * (the card was closed or expired, the issuer refused it); the money then stays with the merchant.
 * The event only names the refund, which is read again. When it failed (or was canceled), and it
 * is a refund of this payment's journal (the refund attempt whose answer named it, or else the
 * latest refund attempt that succeeded without naming one, e.g. settled by a read), then once:
 * - the payment goes back to `captured` (`refunded_minor` less the refund, `refunded_at` null),
 *   flagged `needs_reconciliation` with reason `refund_failed` (a person decides: refund again,
 *   which is a new attempt with a new key, or pay the driver back another way);
 * - `payment.refund_failed` is appended (data.payment);
 * - the refund attempt stays `succeeded` (Stripe took the call) and its record gains
 *   `refund_status` and `refund_failure_reason`.
 * A refund made outside the product (the dashboard) is not in the journal and changes nothing.
 */
export async function followRefund({
  db,
  account,
  intentRef,
  refundRef,
}: {
  db: Db;
  account: string | null;
  intentRef: string | null;
  refundRef: string;
}): Promise<void> {
  if (!intentRef) return;
  const found = await db.payment.findFirst({
    where: { service: "card", processorAccount: account, processorIntentRef: intentRef },
  });
  if (!found) return;
  // A read that fails throws: the event's job asks again after its backoff.
  const refund = await cardProcessor().readRefund(refundRef, merchantOf(found));
  if (refund.status !== "failed" && refund.status !== "canceled") return;
  await inTransaction(db, async (tx) => {
    const locked = await lockPayment(tx, { tenantId: found.tenantId, paymentId: found.id });
    if (!locked) return;
    const payment = locked.payment;
    const refunds = payment.attempts.filter((a) => a.kind === "refund" && a.status === "succeeded");
    const named = (a: (typeof refunds)[number]) => responseOf(a.response).refund_ref;
    const attempt =
      refunds.find((a) => named(a) === refund.refundRef) ??
      refunds.filter((a) => named(a) === undefined).at(-1);
    if (!attempt) return;
    const record = responseOf(attempt.response);
    if (record.refund_status === refund.status) return; // applied already
    await tx.paymentAttempt.update({
      where: { id: attempt.id },
      data: {
        response: {
          ...record,
          refund_ref: refund.refundRef,
          refund_status: refund.status,
          refund_failure_reason: refund.failureReason ?? null,
        },
      },
    });
    if (payment.status !== "refunded" && payment.status !== "refunding") return;
    const back = await tx.payment.update({
      where: { id: payment.id },
      data: {
        status: "captured",
        refundedMinor: Math.max(0, payment.refundedMinor - refund.amountMinor),
        refundedAt: null,
        needsReconciliation: true,
        reconciliationReason: REFUND_FAILED,
      },
      include: paymentInclude,
    });
    await appendPaymentEvent(tx, "payment.refund_failed", back);
  });
}

function responseOf(value: Prisma.JsonValue | null): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? value : {};
}
