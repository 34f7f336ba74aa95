import { z } from "zod";
import type { DbTx } from "../db";
import { Prisma, type Payment, type PaymentAttempt } from "../generated/prisma/client";
import { defineJob, leaseForCalls, stepBackoff, type JobContext } from "../jobs/define-job";
import { recordOutcome } from "../jobs/external-call";
import { env } from "../env";
import { applyObserved, type Observed } from "./apply-intent";
import { lockPayment } from "./lock-payment";
import { appendPaymentEvent } from "./payment-events";
import { paymentProcessor } from "./processors";
import { STRIPE_CALL_BUDGET_MS } from "./processors/stripe";
import { isProcessorError, ProcessorError, type IntentState } from "./processors/types";
import { paymentInclude } from "./present-payment";
import { merchantOf, syncPayment } from "./sync-payment";

/**
 * One processor call of the payments journal (server/jobs/README.md, "Calls to other systems"): the
 * job is keyed by its attempt's id, which is also the processor's Idempotency-Key, so every run
 * of it (a retry, a runner that took over a dead one's lease) asks with the same key and the
 * processor acts at most once. The call is made outside any transaction; its outcome is recorded
 * with the job's next state, fenced by the lease. An uncertain outcome leaves the attempt
 * `unknown` and the job asks again after its backoff; a retry of a capture, release or refund
 * first reads the intent, and a read that shows the change done settles it without calling.
 * When its eight tries (about 2.2 hours) end without an answer, the follow-up sweep
 * (`payment-sweeps.ts`) gives the same attempt a new job, same key, until it settles.
 *
 * The lease covers the longest run: a retry reads the intent, makes the change, then reads the
 * intent again (a refund's answer, or a refusal's sync), each call within the card processor's
 * budget (the slowest; the simulator's calls are database work).
 */
export const PAYMENT_CALLS_PER_RUN = 3;
export const paymentAttemptJob = defineJob({
  id: "payments.attempt",
  payload: z.object({ attempt_id: z.string() }),
  retry: {
    maxAttempts: 8,
    backoff: stepBackoff([1_000, 5_000, 30_000, 120_000, 600_000], 3_600_000),
  },
  leaseMs: leaseForCalls(PAYMENT_CALLS_PER_RUN, STRIPE_CALL_BUDGET_MS),
  handler: ({ attempt_id }, ctx) => runAttempt(attempt_id, ctx),
  // The last run's runner died: nobody knows what the processor did.
  onFailed: async (tx, { attempt_id }, failure) => {
    await tx.paymentAttempt.updateMany({
      where: { id: attempt_id, status: "pending" },
      data: { status: "unknown", error: { kind: "uncertain", code: null, message: failure.error } },
    });
  },
});

/** The job's id for a key (`enqueue` with `{ key }`): the attempt's id, or a follow-up's. */
export const attemptJobId = (key: string) => `${paymentAttemptJob.id}:${key}`;

type Answer =
  | { ok: true; observed: Observed; response: Prisma.InputJsonObject }
  | { ok: false; error: ProcessorError };

async function runAttempt(attemptId: string, ctx: JobContext) {
  const attempt = await ctx.db.paymentAttempt.findUnique({
    where: { id: attemptId },
    include: { payment: true },
  });
  // Already decided (a reconciling read proved it): nothing to ask.
  if (!attempt || attempt.status === "succeeded" || attempt.status === "failed") return;
  // Anything but the first try of the first job may follow a call that reached the processor.
  const followUp = ctx.jobId !== attemptJobId(attempt.id);
  const answer = await ask(
    attempt,
    attempt.payment,
    ctx.attempt > 1 || attempt.status === "unknown" || followUp,
  );
  if (!answer.ok && answer.error.kind === "uncertain") {
    await recordOutcome(
      ctx.db,
      ctx,
      { ok: false, error: answer.error.message, retry: true },
      async (tx) => {
        await tx.paymentAttempt.updateMany({
          where: { id: attempt.id, status: { in: ["pending", "unknown"] } },
          data: { status: "unknown", error: answer.error.toJSON() },
        });
      },
    );
    return;
  }
  const settled = await recordOutcome(ctx.db, ctx, { ok: true }, async (tx) => {
    const locked = await lockPayment(tx, {
      tenantId: attempt.payment.tenantId,
      paymentId: attempt.paymentId,
    });
    if (!locked) return;
    const fresh = await tx.paymentAttempt.findUniqueOrThrow({ where: { id: attempt.id } });
    if (fresh.status === "succeeded" || fresh.status === "failed") return;
    const now = new Date();
    if (answer.ok) {
      await tx.paymentAttempt.update({
        where: { id: attempt.id },
        data: {
          status: "succeeded",
          response: answer.response,
          completedAt: now,
          error: Prisma.DbNull,
        },
      });
      const checkout = answer.observed.checkout;
      const payment = checkout
        ? await tx.payment.update({
            where: { id: attempt.paymentId },
            data: {
              processorCheckoutRef: checkout.checkoutRef,
              processorIntentRef: checkout.intentRef,
              checkoutUrl: answer.response.checkout_url as string,
            },
            include: paymentInclude,
          })
        : locked.payment;
      await applyObserved(tx, payment, answer.observed, now);
      return;
    }
    await tx.paymentAttempt.update({
      where: { id: attempt.id },
      data: { status: "failed", error: answer.error.toJSON(), completedAt: now },
    });
    await undo(tx, attempt, locked.payment.status);
  });
  // A refused change may mean the intent moved (e.g. the hold lapsed): a read shows it.
  if (settled && !answer.ok && attempt.kind !== "authorize")
    await syncPayment({ db: ctx.db, paymentId: attempt.paymentId });
}

/** Makes the attempt's call (or, on a retry, first reads whether it already happened). */
async function ask(attempt: PaymentAttempt, payment: Payment, retrying: boolean): Promise<Answer> {
  const processor = paymentProcessor(payment.service === "card" ? "card" : "simulator");
  const account = merchantOf(payment);
  const key = attempt.id;
  const amountMinor = attempt.amountMinor ?? 0;
  try {
    if (attempt.kind === "authorize") {
      // the default return page shows the payment's team's branding (server/branding/branding.ts)
      const back = payment.returnUrl ?? `${env().publicBaseUrl}/pay/return?payment=${payment.id}`;
      const checkout = await processor.createCheckout({
        idempotencyKey: key,
        account,
        amountMinor,
        currency: "usd",
        description: `Charging session hold (bill ${payment.billId})`,
        metadata: { payment_id: payment.id, bill_id: payment.billId },
        successUrl: back,
        cancelUrl: back,
      });
      return {
        ok: true,
        observed: {
          checkout: {
            checkoutRef: checkout.checkoutRef,
            status: "open",
            intentRef: checkout.intentRef,
          },
          intent: null,
        },
        response: {
          checkout_ref: checkout.checkoutRef,
          checkout_url: checkout.checkoutUrl,
          intent_ref: checkout.intentRef,
          expires_at: checkout.expiresAt.toISOString(),
        },
      };
    }
    const intentRef = payment.processorIntentRef;
    if (!intentRef) throw new ProcessorError("invalid", "the payment has no intent to act on");
    if (retrying) {
      const intent = await processor.readIntent(intentRef, account);
      if (alreadyDone(attempt.kind, amountMinor, intent)) return intentAnswer(intent, true);
    }
    if (attempt.kind === "capture")
      return intentAnswer(
        await processor.capture({ idempotencyKey: key, account, intentRef, amountMinor }),
      );
    if (attempt.kind === "release")
      return intentAnswer(await processor.cancel({ idempotencyKey: key, account, intentRef }));
    const refund = await processor.refund({ idempotencyKey: key, account, intentRef, amountMinor });
    if (refund.status === "failed" || refund.status === "canceled")
      throw new ProcessorError("declined", `the refund ${refund.status}`, { code: refund.status });
    return intentAnswer(await processor.readIntent(intentRef, account), false, {
      refund_ref: refund.refundRef,
      refund_status: refund.status,
    });
  } catch (error) {
    if (isProcessorError(error)) return { ok: false, error };
    return { ok: false, error: new ProcessorError("uncertain", String(error)) };
  }
}

function alreadyDone(kind: string, amountMinor: number, intent: IntentState) {
  if (kind === "capture") return intent.status === "succeeded";
  if (kind === "release") return intent.status === "canceled";
  return intent.amountRefundedMinor >= amountMinor && amountMinor > 0;
}

function intentAnswer(
  intent: IntentState,
  byRead = false,
  extra: Record<string, string> = {},
): Answer {
  return {
    ok: true,
    observed: { checkout: null, intent },
    response: {
      intent_ref: intent.intentRef,
      intent_status: intent.status,
      amount_received_minor: intent.amountReceivedMinor,
      amount_refunded_minor: intent.amountRefundedMinor,
      ...(byRead && { reconciled_by: "read" }),
      ...extra,
    },
  };
}

/** A definitive refusal: nothing happened, so the payment goes back to where it was. */
async function undo(tx: DbTx, attempt: PaymentAttempt, status: string) {
  const back: Record<string, string> = {
    capturing: "authorized",
    releasing: "authorized",
    refunding: "captured",
  };
  if (attempt.kind === "authorize" && status === "pending") {
    const failed = await tx.payment.update({
      where: { id: attempt.paymentId },
      data: { status: "failed" },
      include: paymentInclude,
    });
    await appendPaymentEvent(tx, "payment.failed", failed);
    return;
  }
  const previous = back[status];
  if (previous)
    await tx.payment.update({ where: { id: attempt.paymentId }, data: { status: previous } });
}
