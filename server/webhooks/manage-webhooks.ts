import { db as defaultDb, type DbTx } from "../db";
import { env } from "../env";
import { DomainError, notFound } from "../errors";
import { appendEvent } from "../events/append-event";
import type { TenantPrincipal } from "../access/caller";
import { LATEST_VERSION } from "../versions";
import { missingScopes } from "../access/scopes";
import { newId, randomBase62 } from "../lib/ids";
import { seal } from "../lib/secret-box";
import { urlProblem } from "./destination";
import { presentWebhook } from "./present-webhook";
import { EVENT_TYPES } from "../events/event-types";
import { MAX_ACTIVE_ENDPOINTS, type CreateWebhookInput } from "./webhook-schema";

export function urlRules() {
  const e = env();
  return {
    production: e.serviceEnv === "production",
    allowPrivate: e.webhookAllowPrivateDestinations,
    ownHosts: [new URL(e.publicBaseUrl).hostname, new URL(e.ocppPublicUrl).hostname].map((h) =>
      h.toLowerCase(),
    ),
  };
}

/**
 * Registers an endpoint. The signing secret is returned here once and stored encrypted. Keys need
 * `webhooks:write` plus the read scope of every event type subscribed.
 */
export async function createWebhook({
  tenantId,
  input,
  principal,
  db = defaultDb(),
}: {
  tenantId: number;
  input: CreateWebhookInput;
  principal: TenantPrincipal;
  db?: DbTx;
}) {
  checkUrl(input.url);
  checkScopes(principal, input.events);
  if (input.stations?.length) await checkStations(db, tenantId, input.stations);
  await checkActiveLimit(db, tenantId);
  const secret = `whsec_${randomBase62(40)}`;
  const row = await db.webhookEndpoint.create({
    data: {
      id: newId("whk"),
      tenantId,
      url: input.url,
      events: [...new Set(input.events)],
      description: input.description ?? "",
      stations: input.stations ?? [],
      stationsFiltered: Boolean(input.stations?.length),
      meterSampleIntervalSeconds: input.meter?.sample_interval_seconds ?? 60,
      secretEncrypted: seal(secret),
      apiVersion: LATEST_VERSION,
      createdByKeyId: principal.actorId,
    },
  });
  return presentWebhook(row, secret);
}

/** 422 `webhook_url_invalid` for a destination the rules refuse. */
export function checkUrl(url: string) {
  const problem = urlProblem(url, urlRules());
  if (problem) {
    throw new DomainError("webhook_url_invalid", `url ${problem}.`, {
      fields: [{ field: "url", message: problem }],
    });
  }
}

/** 403 unless the caller holds the read scope of every event type subscribed. */
export function checkScopes(principal: TenantPrincipal, events: readonly string[]) {
  const needed = [...new Set(events.map((t) => EVENT_TYPES[t as keyof typeof EVENT_TYPES]))];
  const missing = missingScopes(principal.scopes, needed);
  if (missing.length) {
    throw new DomainError(
      "insufficient_scope",
      `Subscribing to these events needs ${missing.join(", ")}.`,
      { required_scopes: needed, missing_scopes: missing },
    );
  }
}

/** 422 when a station of the filter is not the tenant's. */
export async function checkStations(db: DbTx, tenantId: number, stations: readonly number[]) {
  const found = await db.station.count({ where: { tenantId, id: { in: [...stations] } } });
  if (found !== new Set(stations).size) {
    throw new DomainError(
      "validation_failed",
      "stations names a station this tenant does not have.",
      {
        fields: [{ field: "stations", message: "names an unknown station" }],
      },
    );
  }
}

/**
 * 409 `webhook_limit_reached` when the tenant has its ten active endpoints already. Creations and
 * re-enablings of one tenant are serialized (an advisory lock held to commit), so the limit holds
 * under concurrency.
 */
export async function checkActiveLimit(db: DbTx, tenantId: number) {
  await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`webhooks:${tenantId}`}))`;
  const active = await db.webhookEndpoint.count({ where: { tenantId, status: "active" } });
  if (active >= MAX_ACTIVE_ENDPOINTS) {
    throw new DomainError(
      "webhook_limit_reached",
      `A tenant can have ${MAX_ACTIVE_ENDPOINTS} active webhook endpoints.`,
      { limit: MAX_ACTIVE_ENDPOINTS },
    );
  }
}

export async function findWebhook(db: DbTx, tenantId: number, webhookId: string) {
  const row = await db.webhookEndpoint.findFirst({ where: { id: webhookId, tenantId } });
  if (!row) throw notFound("webhook");
  return row;
}

/** DELETE: the endpoint becomes `disabled`; its pending deliveries fail; history stays readable. */
export async function disableWebhook({
  tenantId,
  webhookId,
  db = defaultDb(),
}: {
  tenantId: number;
  webhookId: string;
  db?: DbTx;
}) {
  const row = await findWebhook(db, tenantId, webhookId);
  if (row.status === "disabled") return presentWebhook(row);
  const now = new Date();
  await db.webhookDelivery.updateMany({
    where: { endpointId: webhookId, status: "queued" },
    data: { status: "failed", lastError: "EndpointDisabled", completedAt: now },
  });
  return presentWebhook(
    await db.webhookEndpoint.update({
      where: { id: webhookId },
      data: { status: "disabled", disabledAt: now },
    }),
  );
}

/** Queues a signed `webhook.test` for one endpoint (it is in the log too). */
export async function sendTestEvent({
  tenantId,
  webhookId,
  db = defaultDb(),
}: {
  tenantId: number;
  webhookId: string;
  db?: DbTx;
}) {
  const row = await findWebhook(db, tenantId, webhookId);
  if (row.status !== "active")
    throw new DomainError("validation_failed", "The endpoint is disabled.", {
      fields: [{ field: "webhook_id", message: "is disabled" }],
    });
  const event = await appendEvent({
    db,
    tenantId,
    type: "webhook.test",
    resourceId: webhookId,
    data: { webhook_id: webhookId, message: "This is a test delivery from the charging service." },
    deliverOnlyTo: webhookId,
  });
  const delivery = await db.webhookDelivery.findUniqueOrThrow({
    where: { endpointId_eventId: { endpointId: webhookId, eventId: event.id } },
  });
  return { event_id: event.id, delivery_id: delivery.id, status: delivery.status };
}
