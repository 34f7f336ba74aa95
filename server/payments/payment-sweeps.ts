import { defineCronJob } from "../jobs/define-job";
import { inTransaction } from "../db/retry";
import { lockPayment } from "./lock-payment";
import { appendPaymentEvent } from "./payment-events";
import { paymentInclude } from "./present-payment";
import { syncPayment } from "./sync-payment";

/** Spec section 8: a payment operation whose outcome is still unknown after 23 h needs a person. */
export const UNKNOWN_OUTCOME_LIMIT_MS = 23 * 3_600_000;
export const UNKNOWN_OUTCOME_23H = "unknown_outcome_23h";
const SWEEP_EVERY_MS = 10 * 60_000;
const BATCH = 100;

/**
 * Flags payments whose journal holds a call with no known outcome for 23 hours (asked again all
 * that time without a definite answer): `needs_reconciliation`, reason `unknown_outcome_23h`,
 * and `payment.reconciliation_required`. Idempotent: a flagged payment is not flagged again.
 */
export const flagUnknownPaymentsJob = defineCronJob({
  id: "payments.flag-unknown",
  everyMs: SWEEP_EVERY_MS,
  handler: async (_slot, ctx) => {
    const before = new Date(ctx.now().getTime() - UNKNOWN_OUTCOME_LIMIT_MS);
    const stale = await ctx.db.paymentAttempt.findMany({
      where: {
        status: { in: ["pending", "unknown"] },
        createdAt: { lte: before },
        payment: { needsReconciliation: false },
      },
      select: { payment: { select: { id: true, tenantId: true } } },
      distinct: ["paymentId"],
      take: BATCH,
    });
    for (const { payment } of stale) {
      await inTransaction(ctx.db, async (tx) => {
        const locked = await lockPayment(tx, { tenantId: payment.tenantId, paymentId: payment.id });
        if (!locked || locked.payment.needsReconciliation) return;
        const flagged = await tx.payment.update({
          where: { id: payment.id },
          data: { needsReconciliation: true, reconciliationReason: UNKNOWN_OUTCOME_23H },
          include: paymentInclude,
        });
        await appendPaymentEvent(tx, "payment.reconciliation_required", flagged);
      });
    }
  },
});

/**
 * Authorized holds past their lapse are read again: the processor cancels a lapsed card
 * authorization, and the read moves the payment to `expired` (`payment.expired`).
 */
export const expireHoldsJob = defineCronJob({
  id: "payments.expire-holds",
  everyMs: SWEEP_EVERY_MS,
  handler: async (_slot, ctx) => {
    const lapsed = await ctx.db.payment.findMany({
      where: { status: "authorized", expiresAt: { lte: ctx.now() } },
      select: { id: true },
      take: BATCH,
    });
    for (const { id } of lapsed) await syncPayment({ db: ctx.db, paymentId: id });
  },
});
