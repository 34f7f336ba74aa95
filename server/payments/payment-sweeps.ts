import { defineCronJob } from "../jobs/define-job";
import { enqueue } from "../jobs/enqueue";
import { inTransaction } from "../db/retry";
import type { Db } from "../db";
import { accountAttemptJob, accountAttemptJobId } from "./accounts/account-attempt-job";
import { lockPayment } from "./lock-payment";
import { attemptJobId, paymentAttemptJob } from "./payment-attempt-job";
import { appendPaymentEvent } from "./payment-events";
import { enqueuePaymentRead } from "./payment-read-job";
import { paymentInclude } from "./present-payment";

/** Spec section 8: a payment operation whose outcome is still unknown after 23 h needs a person. */
export const UNKNOWN_OUTCOME_LIMIT_MS = 23 * 3_600_000;
export const UNKNOWN_OUTCOME_23H = "unknown_outcome_23h";
/** A checkout lapses 24 h after it is made (Stripe's default, and the simulator's). */
const CHECKOUT_LIFETIME_MS = 24 * 3_600_000;
const SWEEP_EVERY_MS = 10 * 60_000;
const BATCH = 100;

/**
 * Follows every in-flight payment operation to the end, every 10 minutes:
 * - an attempt still `pending` or `unknown` whose job ended without settling it (its eight tries,
 *   about 2.2 hours, ran out; or its job is gone) gets a new job for the same attempt: the same
 *   idempotency key, so the processor acts at most once, asked again until it answers
 *   (`payment_attempts.job_id` names the job asking now). The 23-hour rule below flags what is
 *   still unknown; the asking goes on after it.
 * - a `capturing`, `releasing` or `refunding` payment with no call in flight, and a `pending` one
 *   whose checkout has lapsed, is read (`payments.read`): what the processor shows settles it.
 * - the payment-account journal's calls (`payment_account_attempts`: an account's creation, its
 *   deauthorization) are followed the same way (a creation past 23 hours is abandoned by its job).
 * The sweep itself calls nothing: each call or read is a job with its own lease.
 */
export const followInFlightPaymentsJob = defineCronJob({
  id: "payments.follow-in-flight",
  everyMs: SWEEP_EVERY_MS,
  handler: async (slot, ctx) => {
    const stranded = await ctx.db.$queryRaw<
      { id: string; payment_id: string; tenant_id: number }[]
    >`
      SELECT a.id, a.payment_id, p.tenant_id
        FROM payment_attempts a
        JOIN payments p ON p.id = a.payment_id
        LEFT JOIN jobs j ON j.id = a.job_id
       WHERE a.status IN ('pending', 'unknown')
         AND (j.id IS NULL OR j.status IN ('succeeded', 'failed'))
       ORDER BY a.created_at
       LIMIT ${BATCH}`;
    for (const attempt of stranded) await followUp(ctx.db, attempt, slot);
    const checkoutLapsed = new Date(ctx.now().getTime() - CHECKOUT_LIFETIME_MS - SWEEP_EVERY_MS);
    const unsettled = await ctx.db.$queryRaw<{ id: string }[]>`
      SELECT p.id FROM payments p
       WHERE (p.status IN ('capturing', 'releasing', 'refunding')
              OR (p.status = 'pending' AND p.created_at <= ${checkoutLapsed}))
         AND NOT EXISTS (SELECT 1 FROM payment_attempts a
                          WHERE a.payment_id = p.id AND a.status IN ('pending', 'unknown'))
       ORDER BY p.created_at
       LIMIT ${BATCH}`;
    for (const { id } of unsettled) await enqueuePaymentRead(ctx.db, id, slot);
    await followAccountAttempts(ctx.db, slot);
  },
});

/** The payment-account journal's stranded calls get a new job each (same attempt, same key). */
async function followAccountAttempts(db: Db, slot: Date) {
  const stranded = await db.$queryRaw<{ id: string }[]>`
    SELECT a.id FROM payment_account_attempts a
      LEFT JOIN jobs j ON j.id = a.job_id
     WHERE a.status IN ('pending', 'unknown')
       AND (j.id IS NULL OR j.status IN ('succeeded', 'failed'))
     ORDER BY a.created_at
     LIMIT ${BATCH}`;
  for (const { id } of stranded)
    await inTransaction(db, async (tx) => {
      const [attempt] = await tx.$queryRaw<{ status: string; job_id: string }[]>`
        SELECT status, job_id FROM payment_account_attempts WHERE id = ${id} FOR UPDATE`;
      if (!attempt || (attempt.status !== "pending" && attempt.status !== "unknown")) return;
      const job = await tx.job.findUnique({
        where: { id: attempt.job_id },
        select: { status: true },
      });
      if (job && (job.status === "queued" || job.status === "running")) return;
      const key = `${id}:${slot.toISOString()}`;
      await enqueue(tx, accountAttemptJob, { attempt_id: id }, { key });
      await tx.paymentAccountAttempt.update({
        where: { id },
        data: { jobId: accountAttemptJobId(key) },
      });
    });
}

/** A new job for a stranded attempt (one per attempt and slot), under the payment's lock. */
async function followUp(
  db: Db,
  stranded: { id: string; payment_id: string; tenant_id: number },
  slot: Date,
) {
  await inTransaction(db, async (tx) => {
    const locked = await lockPayment(tx, {
      tenantId: stranded.tenant_id,
      paymentId: stranded.payment_id,
    });
    if (!locked) return;
    const attempt = await tx.paymentAttempt.findUnique({ where: { id: stranded.id } });
    if (!attempt || (attempt.status !== "pending" && attempt.status !== "unknown")) return;
    const job = await tx.job.findUnique({
      where: { id: attempt.jobId },
      select: { status: true },
    });
    if (job && (job.status === "queued" || job.status === "running")) return;
    const key = `${attempt.id}:${slot.toISOString()}`;
    await enqueue(tx, paymentAttemptJob, { attempt_id: attempt.id }, { key });
    await tx.paymentAttempt.update({
      where: { id: attempt.id },
      data: { jobId: attemptJobId(key) },
    });
  });
}

/**
 * Flags payments whose journal holds a call with no known outcome for 23 hours (asked again all
 * that time, and still asked, without a definite answer): `needs_reconciliation`, reason
 * `unknown_outcome_23h`, and `payment.reconciliation_required`. Idempotent: a flagged payment is
 * not flagged again.
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
 * Authorized holds past their lapse (`expires_at`: the processor's own capture deadline, or 7
 * days) are read again (`payments.read`): the processor cancels a lapsed card authorization,
 * and the read moves the payment to `expired` (`payment.expired`).
 */
export const expireHoldsJob = defineCronJob({
  id: "payments.expire-holds",
  everyMs: SWEEP_EVERY_MS,
  handler: async (slot, ctx) => {
    const lapsed = await ctx.db.payment.findMany({
      where: { status: "authorized", expiresAt: { lte: ctx.now() } },
      select: { id: true },
      take: BATCH,
    });
    for (const { id } of lapsed) await enqueuePaymentRead(ctx.db, id, slot);
  },
});
