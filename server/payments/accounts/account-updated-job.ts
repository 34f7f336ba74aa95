import { z } from "zod";
import type { DbTx } from "../../db";
import { defineJob, leaseForCalls, stepBackoff } from "../../jobs/define-job";
import { enqueue } from "../../jobs/enqueue";
import { STRIPE_CALL_BUDGET_MS } from "../processors/stripe";
import { refreshPaymentAccount, tenantOfPaymentAccount } from "./refresh-payment-account";

const payload = z.object({
  /** the connected account Stripe's `account.updated` names */
  account: z.string(),
  /** Stripe's event id, recorded as processed once the account was read */
  event_id: z.string(),
});

/**
 * Stripe's `account.updated`, handled as every processor event is: by reading the account again
 * (`refreshPaymentAccount`), outside any transaction, so the stored state is Stripe's own and a
 * late or repeated delivery only reads once more. An account no project has connected (any more)
 * is recorded and left.
 */
export const accountUpdatedJob = defineJob({
  id: "payments.account-updated",
  payload,
  retry: { maxAttempts: 6, backoff: stepBackoff([1_000, 10_000, 60_000, 600_000], 3_600_000) },
  leaseMs: leaseForCalls(1, STRIPE_CALL_BUDGET_MS),
  handler: async (event, ctx) => {
    const tenantId = await tenantOfPaymentAccount(event.account, ctx.db);
    if (tenantId !== null) await refreshPaymentAccount({ db: ctx.db, tenantId });
    await ctx.db.processorEvent.updateMany({
      where: { id: event.event_id, processedAt: null },
      data: { processedAt: new Date() },
    });
  },
});

/** Asks, in `tx`, for the connected account an event names to be read again. */
export function enqueueAccountUpdated(tx: DbTx, account: string, eventId: string) {
  return enqueue(
    tx,
    accountUpdatedJob,
    { account, event_id: eventId },
    { key: `stripe:${eventId}` },
  );
}
