import { db as defaultDb, type Db } from "../db";
import { inTransaction } from "../db/retry";
import { runJobNow } from "../jobs/run-now";
import { log } from "../log";
import { teamBilling } from "../team-billing/stripe-billing";
import { billingEventJob, enqueueBillingEvent } from "../team-billing/standing-update";

const MAX_BODY_BYTES = 256 * 1024;

/**
 * POST /api/stripe/billing-webhook: the platform account's own events (team billing: invoices
 * created, finalized, paid, failed, voided…), a Stripe endpoint of its own with its own secret
 * (STRIPE_BILLING_WEBHOOK_SECRET; Connect events go to /api/stripe/webhook). The raw body is
 * verified with the SDK; an unproven delivery is 400. Each event id is recorded once in
 * `processor_events` (a redelivery is acknowledged and does nothing) with a `team-billing.event`
 * job that reads the invoice again and updates the team's standing. With team billing off: 404.
 */
export async function receiveStripeBillingWebhook(
  request: Request,
  deps: { db?: Db } = {},
): Promise<Response> {
  const config = teamBilling();
  if (!config) return answer(404, { error: "team billing is off" });
  const db = deps.db ?? defaultDb();
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return answer(413, { error: "payload too large" });
  const raw = Buffer.from(await request.arrayBuffer());
  if (raw.length > MAX_BODY_BYTES) return answer(413, { error: "payload too large" });
  const parsed = config.stripe.parseWebhook(raw, request.headers.get("stripe-signature"));
  if (parsed.kind === "refused") {
    log.warn("stripe billing webhook refused", { reason: parsed.reason });
    return answer(400, { error: "the delivery could not be verified" });
  }
  if (parsed.kind === "ignored") return answer(200, { received: true });
  const event = parsed.event;
  const jobId = await inTransaction(db, async (tx) => {
    const inserted = await tx.$executeRaw`
      INSERT INTO processor_events (id, type, account) VALUES (${event.id}, ${event.type}, NULL)
      ON CONFLICT (id) DO NOTHING`;
    if (inserted === 0 || !event.invoiceRef) return null;
    return enqueueBillingEvent(tx, event.id, event.invoiceRef);
  });
  if (jobId)
    await runJobNow({ db, definitions: [billingEventJob], jobId }).catch((error: unknown) =>
      log.warn("stripe billing event fast path failed", { event_id: event.id, error }),
    );
  return answer(200, { received: true });
}

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
