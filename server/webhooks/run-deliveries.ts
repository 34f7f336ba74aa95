import type { Db } from "../db";
import { presentEvent } from "../events/present-event";
import { isApiVersion, LATEST_VERSION } from "../versions";
import { log } from "../log";
import { open } from "../lib/secret-box";
import type { Resolver } from "./destination";
import { sendAttempt, type TestNetwork } from "./send-attempt";
import { signatureHeader } from "./signature";

/** Retries after 1 min, 5 min, 30 min, 2 h, then every 12 h; eight attempts in all. */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000];
export const LATER_RETRY_MS = 12 * 3_600_000;
export const MAX_ATTEMPTS = 8;
/** Longer than an attempt can take (15 s), so a lease only lapses when its worker died. */
export const LEASE_MS = 60_000;

export function retryDelayMs(attemptsMade: number): number {
  return RETRY_DELAYS_MS[attemptsMade - 1] ?? LATER_RETRY_MS;
}

export type DeliveryRunOptions = {
  db: Db;
  allowPrivate: boolean;
  resolve: Resolver;
  /** the clock that decides what is due and when retries fall (tests move it) */
  now?: Date;
  limit?: number;
  stepTimeoutMs?: number;
  attemptTimeoutMs?: number;
  /** tests only: see TestNetwork */
  testNetwork?: TestNetwork;
};

/**
 * Claims due deliveries (FOR UPDATE SKIP LOCKED, then a lease) and makes one attempt each. Any
 * number of workers in any number of processes can run this side by side: a row is leased by one
 * worker at a time, so no attempt is made twice; a worker that dies mid-attempt leaves a lease
 * that lapses, and the delivery is tried again (at least once).
 */
export async function runDueDeliveries(options: DeliveryRunOptions): Promise<number> {
  const now = options.now ?? new Date();
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const claimed = await options.db.$queryRaw<{ id: string }[]>`
    UPDATE webhook_deliveries SET lease_until = ${leaseUntil}
     WHERE id IN (
       SELECT id FROM webhook_deliveries
        WHERE status = 'queued' AND next_attempt_at <= ${now}
          AND (lease_until IS NULL OR lease_until < ${now})
        ORDER BY next_attempt_at
        LIMIT ${options.limit ?? 20}
        FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  await Promise.all(claimed.map(({ id }) => attempt(options, id, now, leaseUntil)));
  return claimed.length;
}

async function attempt(
  options: DeliveryRunOptions,
  deliveryId: string,
  now: Date,
  leaseUntil: Date,
) {
  const { db } = options;
  try {
    const delivery = await db.webhookDelivery.findUniqueOrThrow({
      where: { id: deliveryId },
      include: { endpoint: true },
    });
    if (delivery.endpoint.status !== "active") {
      await db.webhookDelivery.update({
        where: { id: deliveryId },
        data: {
          status: "failed",
          lastError: "EndpointDisabled",
          completedAt: now,
          leaseUntil: null,
        },
      });
      return;
    }
    const event = await db.event.findUniqueOrThrow({ where: { id: delivery.eventId } });
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
      allowPrivate: options.allowPrivate,
      resolve: options.resolve,
      ...(options.stepTimeoutMs ? { stepTimeoutMs: options.stepTimeoutMs } : {}),
      ...(options.attemptTimeoutMs ? { attemptTimeoutMs: options.attemptTimeoutMs } : {}),
      ...(options.testNetwork ? { testNetwork: options.testNetwork } : {}),
    });
    const attempts = delivery.attempts + 1;
    const failed = !result.ok && attempts >= MAX_ATTEMPTS;
    await db.$transaction(async (tx) => {
      // Only the lease holder records the outcome.
      const updated = await tx.webhookDelivery.updateMany({
        where: { id: deliveryId, leaseUntil },
        data: {
          attempts,
          status: result.ok ? "acknowledged" : failed ? "failed" : "queued",
          lastError: result.error,
          lastStatus: result.status,
          nextAttemptAt:
            result.ok || failed ? now : new Date(now.getTime() + retryDelayMs(attempts)),
          completedAt: result.ok || failed ? new Date() : null,
          leaseUntil: null,
        },
      });
      if (updated.count === 0) return;
      await tx.webhookAttempt.create({
        data: {
          deliveryId,
          number: attempts,
          startedAt,
          finishedAt: new Date(),
          httpStatus: result.status,
          error: result.error,
        },
      });
    });
  } catch (error) {
    log.error("webhook delivery attempt failed", { deliveryId, error });
  }
}
