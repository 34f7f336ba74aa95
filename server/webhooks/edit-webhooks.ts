import { db as defaultDb, type DbTx } from "../db";
import type { TenantPrincipal } from "../access/caller";
import { DomainError, notFound } from "../errors";
import { presentEvent } from "../events/present-event";
import { enqueue } from "../jobs/enqueue";
import { isApiVersion, LATEST_VERSION } from "../versions";
import { deliverWebhook } from "./deliver-webhook";
import { presentDelivery } from "./list-deliveries";
import {
  checkActiveLimit,
  checkScopes,
  checkStations,
  checkUrl,
  findWebhook,
} from "./manage-webhooks";
import { presentWebhook } from "./present-webhook";
import type { UpdateWebhookInput } from "./webhook-schema";

/**
 * PATCH an endpoint: url, events, description, stations filter, meter interval, with the rules of
 * creation (the URL's, the read scope of every event subscribed, the tenant's stations). The
 * signing secret and pinned version stay; deliveries already queued go to the new URL.
 */
export async function updateWebhook({
  tenantId,
  webhookId,
  input,
  principal,
  db = defaultDb(),
}: {
  tenantId: number;
  webhookId: string;
  input: UpdateWebhookInput;
  principal: TenantPrincipal;
  db?: DbTx;
}) {
  const row = await findWebhook(db, tenantId, webhookId);
  if (input.url !== undefined) checkUrl(input.url);
  if (input.events !== undefined) checkScopes(principal, input.events);
  if (input.stations?.length) await checkStations(db, tenantId, input.stations);
  return presentWebhook(
    await db.webhookEndpoint.update({
      where: { id: row.id },
      data: {
        ...(input.url !== undefined && { url: input.url }),
        ...(input.events !== undefined && { events: [...new Set(input.events)] }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.stations !== undefined && {
          stations: input.stations ?? [],
          stationsFiltered: Boolean(input.stations?.length),
        }),
        ...(input.meter && { meterSampleIntervalSeconds: input.meter.sample_interval_seconds }),
      },
    }),
  );
}

/**
 * Re-enables a disabled endpoint: it receives the events appended from now on (deliveries failed
 * while it was disabled stay failed; each can be resent). Within the ten active endpoints.
 */
export async function enableWebhook({
  tenantId,
  webhookId,
  db = defaultDb(),
}: {
  tenantId: number;
  webhookId: string;
  db?: DbTx;
}) {
  const row = await findWebhook(db, tenantId, webhookId);
  if (row.status === "active") return presentWebhook(row);
  await checkActiveLimit(db, tenantId);
  return presentWebhook(
    await db.webhookEndpoint.update({
      where: { id: row.id },
      data: { status: "active", disabledAt: null },
    }),
  );
}

async function findDelivery(db: DbTx, tenantId: number, webhookId: string, deliveryId: string) {
  const endpoint = await findWebhook(db, tenantId, webhookId);
  const delivery = await db.webhookDelivery.findFirst({
    where: { id: deliveryId, endpointId: endpoint.id, tenantId },
    include: { attemptLog: { orderBy: { number: "asc" } } },
  });
  if (!delivery) throw notFound("delivery");
  return { endpoint, delivery };
}

/** One delivery with every attempt and the body each attempt sends. */
export async function getDelivery({
  tenantId,
  webhookId,
  deliveryId,
  db = defaultDb(),
}: {
  tenantId: number;
  webhookId: string;
  deliveryId: string;
  db?: DbTx;
}) {
  const { endpoint, delivery } = await findDelivery(db, tenantId, webhookId, deliveryId);
  const event = await db.event.findFirst({ where: { id: delivery.eventId, tenantId } });
  const version = isApiVersion(endpoint.apiVersion) ? endpoint.apiVersion : LATEST_VERSION;
  return {
    ...presentDelivery(delivery, event?.type ?? ""),
    body: event ? { ...presentEvent(event, version) } : null,
  };
}

/**
 * Sends a settled delivery (acknowledged or failed) again: the same delivery of the same event,
 * queued once more with a job of its own, whose attempts are journaled after the earlier ones
 * (numbered on) on the contract's schedule, signed afresh; receivers deduplicate on
 * `Service-Event-Id`, which is the same. A delivery still queued answers as it is (its next
 * attempt is coming). The endpoint must be active. Locks the delivery row.
 */
export async function resendDelivery({
  tenantId,
  webhookId,
  deliveryId,
  db = defaultDb(),
}: {
  tenantId: number;
  webhookId: string;
  deliveryId: string;
  db?: DbTx;
}) {
  const { endpoint } = await findDelivery(db, tenantId, webhookId, deliveryId);
  if (endpoint.status !== "active")
    throw new DomainError("validation_failed", "The endpoint is disabled; enable it first.", {
      fields: [{ field: "webhook_id", message: "is disabled" }],
    });
  const [locked] = await db.$queryRaw<{ status: string; event_id: string }[]>`
    SELECT status, event_id FROM webhook_deliveries WHERE id = ${deliveryId} FOR UPDATE`;
  if (locked && locked.status !== "queued") {
    const event = await db.event.findFirst({
      where: { id: locked.event_id, tenantId },
      select: { id: true, type: true, createdAt: true },
    });
    if (!event)
      throw new DomainError("validation_failed", "The delivery's event is no longer kept.", {
        fields: [{ field: "delivery_id", message: "its event was removed by retention" }],
      });
    const now = new Date();
    // An earlier job still waiting (a retry scheduled before its endpoint was disabled) is
    // retired, so the resend's job is the only one that attempts it.
    await db.$executeRaw`
      UPDATE jobs SET status = 'succeeded', finished_at = now(), last_error = 'superseded by a resend'
       WHERE name = ${deliverWebhook.id} AND status = 'queued'
         AND payload->>'delivery_id' = ${deliveryId}`;
    await db.webhookDelivery.update({
      where: { id: deliveryId },
      data: { status: "queued", completedAt: null, nextAttemptAt: now },
    });
    await enqueue(db, deliverWebhook, {
      delivery_id: deliveryId,
      event: { id: event.id, type: event.type, created_at: event.createdAt.toISOString() },
    });
  }
  return getDelivery({ tenantId, webhookId, deliveryId, db });
}
