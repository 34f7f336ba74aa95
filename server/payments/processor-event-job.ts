import { z } from "zod";
import type { DbTx } from "../db";
import { defineJob, leaseForCalls, stepBackoff } from "../jobs/define-job";
import { enqueue } from "../jobs/enqueue";
import { STRIPE_CALL_BUDGET_MS } from "./processors/stripe";
import { followRefund } from "./refund-failed";
import { syncPayment } from "./sync-payment";

/**
 * What a processor's event names, handled by READING the object again: the event is a hint that
 * something changed, never the new state. The payment it concerns (found by its checkout or
 * intent, on the event's account) is synced (`syncPayment`), which moves it only forward, so a
 * delivery that is late, repeated or out of order changes nothing twice. A refund event also
 * reads the refund it names (`followRefund`: a refund that failed after it succeeded). Stripe's Connect webhooks
 * and the simulator's page actions both come this way.
 */
export const processorEventPayload = z.object({
  service: z.enum(["card", "simulator"]),
  /** the connected account it happened on (card); null for the simulator */
  account: z.string().nullable(),
  checkout_ref: z.string().nullable(),
  intent_ref: z.string().nullable(),
  /** the processor's event id (recorded as processed), when there is one */
  event_id: z.string().nullable(),
  /** the refund a refund event names (card); absent from jobs queued before refunds were followed */
  refund_ref: z.string().nullable().optional(),
});
export type ProcessorEventPayload = z.infer<typeof processorEventPayload>;

export const processorEventJob = defineJob({
  id: "payments.processor-event",
  payload: processorEventPayload,
  retry: { maxAttempts: 6, backoff: stepBackoff([1_000, 10_000, 60_000, 600_000], 3_600_000) },
  // a refund's read, then the payment's: its checkout and its intent
  leaseMs: leaseForCalls(3, STRIPE_CALL_BUDGET_MS),
  handler: async (event, ctx) => {
    if (event.service === "card" && event.refund_ref)
      await followRefund({
        db: ctx.db,
        account: event.account,
        intentRef: event.intent_ref,
        refundRef: event.refund_ref,
      });
    const refs = [event.checkout_ref, event.intent_ref].filter((r): r is string => r !== null);
    const payment =
      refs.length === 0
        ? null
        : await ctx.db.payment.findFirst({
            where: {
              service: event.service,
              ...(event.service === "card" && { processorAccount: event.account }),
              OR: [{ processorCheckoutRef: { in: refs } }, { processorIntentRef: { in: refs } }],
            },
            select: { id: true },
          });
    if (payment) await syncPayment({ db: ctx.db, paymentId: payment.id });
    if (event.event_id)
      await ctx.db.processorEvent.updateMany({
        where: { id: event.event_id, processedAt: null },
        data: { processedAt: new Date() },
      });
  },
});

/** Asks, in `tx`, for the payment a processor's object concerns to be read again. */
export function enqueueProcessorEvent(tx: DbTx, event: ProcessorEventPayload, key: string) {
  return enqueue(tx, processorEventJob, event, { key });
}
