import { db as defaultDb, type Db } from "../db";
import { inTransaction } from "../db/retry";
import { runJobNow } from "../jobs/run-now";
import { log } from "../log";
import { accountUpdatedJob, enqueueAccountUpdated } from "../payments/accounts/account-updated-job";
import { enqueueProcessorEvent, processorEventJob } from "../payments/processor-event-job";
import { cardProcessor } from "../payments/processors";
import type { WebhookVerifier } from "../payments/processors/types";

/** Stripe's events are small; anything bigger is not one. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * POST /api/stripe/webhook: Stripe Connect's events. The raw body is verified with the SDK
 * (`parseWebhook`: signature, secret, age); an unproven delivery is 400 and acts on nothing.
 * Each event id is recorded once in `processor_events` (a redelivery is acknowledged and does
 * nothing), with a job that reads the object again from Stripe and moves the payment only
 * forward (a refund event also reads the refund); for `account.updated` and
 * `account.application.deauthorized`, a job that reads the connected account again
 * (`accounts/account-updated-job.ts`).
 */
export async function receiveStripeWebhook(
  request: Request,
  deps: { db?: Db; verifier?: WebhookVerifier } = {},
): Promise<Response> {
  const db = deps.db ?? defaultDb();
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return answer(413, { error: "payload too large" });
  const raw = Buffer.from(await request.arrayBuffer());
  if (raw.length > MAX_BODY_BYTES) return answer(413, { error: "payload too large" });
  const verifier = deps.verifier ?? cardProcessor();
  const parsed = verifier.parseWebhook(raw, request.headers.get("stripe-signature"));
  if (parsed.kind === "refused") {
    log.warn("stripe webhook refused", { reason: parsed.reason });
    return answer(400, { error: "the delivery could not be verified" });
  }
  if (parsed.kind === "ignored") return answer(200, { received: true });
  const event = parsed.event;
  const jobId = await inTransaction(db, async (tx) => {
    const inserted = await tx.$executeRaw`
      INSERT INTO processor_events (id, type, account) VALUES (${event.id}, ${event.type}, ${event.account})
      ON CONFLICT (id) DO NOTHING`;
    if (inserted === 0) return null;
    // Both are about the connected account: it is read again (a revoked one answers that it
    // cannot be reached, and is marked so).
    if (event.type === "account.updated" || event.type === "account.application.deauthorized")
      return enqueueAccountUpdated(tx, event.account ?? event.objectId, event.id);
    return enqueueProcessorEvent(
      tx,
      {
        service: "card",
        account: event.account,
        checkout_ref: event.checkoutRef,
        intent_ref: event.intentRef,
        event_id: event.id,
        refund_ref: event.refundRef,
      },
      `stripe:${event.id}`,
    );
  });
  // The fast path: read now rather than at a runner's next claim (it keeps the job if first).
  if (jobId)
    await runJobNow({ db, definitions: [processorEventJob, accountUpdatedJob], jobId }).catch(
      (error: unknown) => log.warn("stripe event fast path failed", { event_id: event.id, error }),
    );
  return answer(200, { received: true });
}

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
