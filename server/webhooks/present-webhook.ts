import type { WebhookEndpoint } from "../generated/prisma/client";
import type { WebhookResource } from "./webhook-schema";

export function presentWebhook(
  row: WebhookEndpoint,
  secret: string | null = null,
): WebhookResource {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status as WebhookResource["status"],
    created_at: row.createdAt.toISOString(),
    disabled_at: row.disabledAt?.toISOString() ?? null,
    stations: row.stationsFiltered ? row.stations : null,
    meter: { sample_interval_seconds: row.meterSampleIntervalSeconds },
    secret,
    api_version: row.apiVersion,
  };
}
