import { z } from "zod";
import type { DbTx } from "../db";
import { defineJob, leaseForCalls, stepBackoff } from "../jobs/define-job";
import { enqueue } from "../jobs/enqueue";
import { STRIPE_CALL_BUDGET_MS } from "./processors/stripe";
import { syncPayment } from "./sync-payment";

/**
 * Reads one payment from its processor and applies what the read shows (`syncPayment`): the
 * sweeps' way to look at a payment, one job per payment and slot, so that a slow processor holds
 * one payment's lease, never a sweep's. A read that fails leaves the payment as it was; the next
 * slot reads it again. The lease covers a read of the checkout and one of the intent.
 */
export const paymentReadJob = defineJob({
  id: "payments.read",
  payload: z.object({ payment_id: z.string() }),
  retry: { maxAttempts: 3, backoff: stepBackoff([5_000, 60_000], 60_000) },
  leaseMs: leaseForCalls(2, STRIPE_CALL_BUDGET_MS),
  handler: async ({ payment_id }, ctx) => {
    await syncPayment({ db: ctx.db, paymentId: payment_id });
  },
});

/** Asks, in `tx`, for a payment to be read in the sweep slot `slot` (once per slot). */
export function enqueuePaymentRead(tx: DbTx, paymentId: string, slot: Date) {
  return enqueue(
    tx,
    paymentReadJob,
    { payment_id: paymentId },
    { key: `${paymentId}:${slot.toISOString()}` },
  );
}
