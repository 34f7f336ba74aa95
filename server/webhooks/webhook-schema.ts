import { z } from "zod";
import { EVENT_TYPES, eventTypeSchema } from "../events/event-types";
import { resourceId } from "../lib/int4";

/**
 * The event types a `stations` filter limits (station, connector, fault and meter events; a
 * station's configuration, credentials and screens are its own events too).
 */
export const STATION_FILTERED_TYPES = new Set<string>([
  "station.connected",
  "station.disconnected",
  "station.booted",
  "connector.status_changed",
  "station.fault_opened",
  "station.fault_cleared",
  "meter.sampled",
  "station.configuration_changed",
  "station.credentials_changed",
  "display.delivery_changed",
  "station.firmware_status_changed",
  "station.diagnostics_status_changed",
  "station.diagnostics_uploaded",
  "reservation.status_changed",
  "station.local_list_synced",
]);

export const MAX_ACTIVE_ENDPOINTS = 10;

export const createWebhookBody = z.strictObject({
  url: z.string().min(1).max(2048),
  events: z.array(eventTypeSchema).min(1).max(Object.keys(EVENT_TYPES).length),
  description: z.string().max(500).optional(),
  stations: z.array(resourceId).min(1).max(1000).nullable().optional(),
  meter: z.strictObject({ sample_interval_seconds: z.number().int().min(10).max(3600) }).optional(),
});
export type CreateWebhookInput = z.infer<typeof createWebhookBody>;

/** PATCH: what is given replaces what was; `stations: null` lifts the filter. */
export const updateWebhookBody = z
  .strictObject({
    url: createWebhookBody.shape.url.optional(),
    events: createWebhookBody.shape.events.optional(),
    description: createWebhookBody.shape.description,
    stations: createWebhookBody.shape.stations,
    meter: createWebhookBody.shape.meter,
  })
  .refine((b) => Object.keys(b).length > 0, "give at least one field to change");
export type UpdateWebhookInput = z.infer<typeof updateWebhookBody>;

export const webhookSchema = z.object({
  id: z.string(),
  tenant_id: z.number().int(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string(),
  status: z.enum(["active", "disabled"]),
  created_at: z.string(),
  disabled_at: z.string().nullable(),
  stations: z.array(z.number().int()).nullable(),
  meter: z.object({ sample_interval_seconds: z.number().int() }),
  secret: z.string().nullable().describe("returned once, at creation"),
  api_version: z.string(),
});
export type WebhookResource = z.infer<typeof webhookSchema>;

export const deliverySchema = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(["queued", "acknowledged", "failed"]),
  attempts: z.number().int(),
  next_retry_at: z.string().nullable(),
  last_error: z.string().nullable(),
  last_http_status: z.number().int().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  attempt_log: z.array(
    z.object({
      number: z.number().int(),
      started_at: z.string(),
      finished_at: z.string(),
      http_status: z.number().int().nullable(),
      error: z.string().nullable(),
    }),
  ),
});

export const deliveryDetailSchema = deliverySchema.extend({
  body: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      "the JSON body every attempt sends: the event as the endpoint's pinned version shows it (null once retention removed the event)",
    ),
});
