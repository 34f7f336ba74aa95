import { db as defaultDb, type DbTx } from "../db";
import { env } from "../env";
import { DomainError, notFound } from "../errors";
import { appendEvent } from "../events/append-event";
import type { TenantPrincipal } from "../access/caller";
import { LATEST_VERSION } from "../versions";
import { missingScopes, type Scope } from "../access/scopes";
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
  const problem = urlProblem(input.url, urlRules());
  if (problem) {
    throw new DomainError("webhook_url_invalid", `url ${problem}.`, {
      fields: [{ field: "url", message: problem }],
    });
  }
  const needed = [...new Set(input.events.map((t) => EVENT_TYPES[t]))] as Scope[];
  const missing = missingScopes(principal.scopes, needed);
  if (missing.length) {
    throw new DomainError(
      "insufficient_scope",
      `Subscribing to these events needs ${missing.join(", ")}.`,
      { required_scopes: needed, missing_scopes: missing },
    );
  }
  if (input.stations?.length) {
    const found = await db.station.count({ where: { tenantId, id: { in: input.stations } } });
    if (found !== new Set(input.stations).size) {
      throw new DomainError(
        "validation_failed",
        "stations names a station this tenant does not have.",
        { fields: [{ field: "stations", message: "names an unknown station" }] },
      );
    }
  }
  // Serialize creations of one tenant so the active limit holds under concurrency.
  await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`webhooks:${tenantId}`}))`;
  const active = await db.webhookEndpoint.count({ where: { tenantId, status: "active" } });
  if (active >= MAX_ACTIVE_ENDPOINTS) {
    throw new DomainError(
      "webhook_limit_reached",
      `A tenant can have ${MAX_ACTIVE_ENDPOINTS} active webhook endpoints.`,
      { limit: MAX_ACTIVE_ENDPOINTS },
    );
  }
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
