import { z } from "zod";
import { resourceId } from "../lib/int4";

/** Event types an endpoint can subscribe to (spec section 6), and the read scope each needs. */
export const EVENT_TYPES = {
  "operation.completed": "stations:read",
  "charging_session.status_changed": "billing:read",
  "bill.finalized": "billing:read",
  /** a bill's transaction ended; data.reason says why (`hold_limit`: the live cap stopped it) */
  "bill.charging_stopped": "billing:read",
  /**
   * a managed bill's running cost passed its hold (the live cap's stop not confirmed: the charger
   * charges on; or the session ended above it): the bill needs reconciliation
   */
  "bill.cap_exceeded": "billing:read",
  /** payment state changes; data.payment is the payment as /v1 shows it */
  "payment.authorized": "billing:read",
  "payment.failed": "billing:read",
  "payment.captured": "billing:read",
  "payment.released": "billing:read",
  "payment.refunded": "billing:read",
  "payment.expired": "billing:read",
  "payment.reconciliation_required": "billing:read",
  /** the processor failed a refund after accepting it; the payment is `captured` again, flagged */
  "payment.refund_failed": "billing:read",
  "display.delivery_changed": "stations:read",
  "webhook.test": "webhooks:read",
  "station.connected": "stations:read",
  "station.disconnected": "stations:read",
  "station.booted": "stations:read",
  "connector.status_changed": "stations:read",
  "station.fault_opened": "stations:read",
  "station.fault_cleared": "stations:read",
  "meter.sampled": "stations:read",
  "station.credentials_changed": "stations:read",
  "station.configuration_changed": "stations:read",
  /** a key's per-minute limit was changed (PUT /v1/admin/api-keys/{key_id}/rate-limit) */
  "api_key.rate_limit_changed": "stations:read",
} as const;
export type EventType = keyof typeof EVENT_TYPES;
export const eventTypeSchema = z.enum(Object.keys(EVENT_TYPES) as [EventType, ...EventType[]]);

/** The event types a `stations` filter limits (station, connector, fault and meter events). */
export const STATION_FILTERED_TYPES = new Set<string>([
  "station.connected",
  "station.disconnected",
  "station.booted",
  "connector.status_changed",
  "station.fault_opened",
  "station.fault_cleared",
  "meter.sampled",
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
