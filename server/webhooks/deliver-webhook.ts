import { z } from "zod";
import { env } from "../env";
import { presentEvent } from "../events/present-event";
import { defineJob, stepBackoff, type JobContext } from "../jobs/define-job";
import { recordOutcome } from "../jobs/external-call";
import { Prisma } from "../generated/prisma/client";
import { open } from "../lib/secret-box";
import { isApiVersion, LATEST_VERSION } from "../versions";
import { systemResolver, type Resolver } from "./destination";
import { deliveryLoader, type DeliveryKey, type LoadedDelivery } from "./load-deliveries";
import { sendAttempt, type TestNetwork } from "./send-attempt";
import { signatureHeader } from "./signature";

/** Retries after 1 min, 5 min, 30 min, 2 h, then every 12 h; eight attempts in all. */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000];
export const LATER_RETRY_MS = 12 * 3_600_000;
export const MAX_ATTEMPTS = 8;
/** Longer than an attempt can take (15 s), so a lease only lapses when its runner died. */
export const DELIVERY_LEASE_MS = 60_000;

export type DeliveryNetwork = {
  allowPrivate: boolean;
  resolve: Resolver;
  stepTimeoutMs?: number;
  attemptTimeoutMs?: number;
  /** tests only: see TestNetwork */
  testNetwork?: TestNetwork;
};

/**
 * The delivery's id, and its event's whole key (`events` is keyed by id, type and creation time,
 * and partitioned by the last two), so the event is read from its own partition. Jobs queued
 * before the key was carried have the delivery's id alone: their event is found through the
 * delivery row.
 */
const deliveryPayload = z.object({
  delivery_id: z.string(),
  event: z.object({ id: z.string(), type: z.string(), created_at: z.iso.datetime() }).optional(),
});

/**
 * Delivery of one event to one endpoint, as a job: one job per delivery row (keyed by the
 * delivery's id), enqueued by the fan-out in the event's transaction. Each claim makes one
 * attempt; a failed attempt is retried on the contract's schedule (the job's backoff), and the
 * delivery row, the API's record, shows the same attempts, status and next attempt. This is the
 * external-call pattern (server/jobs/external-call.ts): the DNS lookup and the POST happen
 * outside any transaction; the outcome is recorded on the delivery together with the job's next
 * state, by the lease holder only; the receiver's idempotency key is `Service-Event-Id`, the same
 * on every attempt.
 */
export function deliveryJob(network: () => DeliveryNetwork) {
  const load = deliveryLoader();
  return defineJob({
    id: "webhooks.deliver",
    payload: deliveryPayload,
    retry: { maxAttempts: MAX_ATTEMPTS, backoff: stepBackoff(RETRY_DELAYS_MS, LATER_RETRY_MS) },
    leaseMs: DELIVERY_LEASE_MS,
    handler: (payload, ctx) => {
      const { delivery_id: deliveryId, event } = payload;
      const key: DeliveryKey = {
        deliveryId,
        ...(event && {
          event: { id: event.id, type: event.type, createdAt: new Date(event.created_at) },
        }),
      };
      return attempt(deliveryId, ctx, network(), () => load(ctx.db, key));
    },
    // The kernel failed the job (an error on the last attempt, or its runner died): say so.
    onFailed: async (tx, { delivery_id }, { error }) => {
      await tx.webhookDelivery.updateMany({
        where: { id: delivery_id, status: "queued" },
        data: { status: "failed", lastError: error.slice(0, 500), completedAt: new Date() },
      });
    },
  });
}

/** The definition the product runs and enqueues: the system's resolver, public destinations. */
export const deliverWebhook = deliveryJob(() => ({
  allowPrivate: env().webhookAllowPrivateDestinations,
  resolve: systemResolver,
}));

async function attempt(
  deliveryId: string,
  ctx: JobContext,
  network: DeliveryNetwork,
  load: () => Promise<LoadedDelivery | null>,
) {
  const { db } = ctx;
  const delivery = await load();
  // Settled already: the endpoint was disabled (its deliveries failed), or retention removed it.
  if (!delivery || delivery.status !== "queued") return;
  if (delivery.endpoint.status !== "active") {
    await recordOutcome(db, ctx, { ok: false, error: "EndpointDisabled", retry: false }, (tx) =>
      tx.webhookDelivery
        .updateMany({
          where: { id: deliveryId, status: "queued" },
          data: { status: "failed", lastError: "EndpointDisabled", completedAt: ctx.now() },
        })
        .then(() => {}),
    );
    return;
  }
  const event = delivery.event;
  // The event's partition was dropped by retention while its delivery still waited: a failure,
  // retried on the schedule like any other, as the lookup that threw here did before.
  if (!event) throw new Error(`event of delivery ${deliveryId} not found`);
  const version = isApiVersion(delivery.endpoint.apiVersion)
    ? delivery.endpoint.apiVersion
    : LATEST_VERSION;
  const body = JSON.stringify(presentEvent(event, version));
  const startedAt = new Date();
  const result = await sendAttempt({
    url: delivery.endpoint.url,
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "ChargeCloud-Webhooks/1",
      "service-event-id": event.id,
      "service-event-type": event.type,
      "service-version": delivery.endpoint.apiVersion,
      // signed with the real clock, whatever clock schedules the retries
      "service-signature": signatureHeader(
        open(delivery.endpoint.secretEncrypted),
        body,
        Math.floor(Date.now() / 1000),
      ),
    },
    ...network,
  });
  const outcome = result.ok
    ? ({ ok: true } as const)
    : { ok: false as const, error: result.error ?? "Failed" };
  // Every non-2xx answer and every network failure is tried again (the contract's schedule). The
  // outcome, the delivery row and the job's next state are one statement, fenced by the job.
  await ctx.settleWith(outcome, (settled, cte) => {
    const status =
      settled.status === "succeeded"
        ? "acknowledged"
        : settled.status === "failed"
          ? "failed"
          : "queued";
    const finishedAt = new Date();
    const nextAttemptAt = settled.status === "queued" ? settled.runAt : ctx.now();
    const completedAt = settled.status === "queued" ? null : finishedAt;
    // A delivery failed meanwhile (its endpoint was disabled) keeps that outcome.
    return Prisma.sql`
      ${cte("delivery")} AS (
        UPDATE webhook_deliveries
           SET attempts = attempts + 1, status = ${status}, last_error = ${result.error},
               last_status = ${result.status}, next_attempt_at = ${nextAttemptAt},
               completed_at = ${completedAt}::timestamptz
         WHERE id = ${deliveryId} AND status = 'queued' AND EXISTS (SELECT 1 FROM ${cte("job")})
        RETURNING attempts),
      ${cte("logged")} AS (
        INSERT INTO webhook_attempts (delivery_id, number, started_at, finished_at, http_status, error)
        SELECT ${deliveryId}, attempts, ${startedAt}, ${finishedAt}, ${result.status}::int, ${result.error}
          FROM ${cte("delivery")})`;
  });
}
