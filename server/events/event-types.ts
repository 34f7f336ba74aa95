import { z } from "zod";

/** Event types an endpoint can subscribe to (spec section 6), and the read scope each needs. */
export const EVENT_TYPES = {
  "operation.completed": "stations:read",
  "charging_session.status_changed": "billing:read",
  /** a sandbox session's status changed (data: session_id, status, previous_status, session) */
  "sandbox_session.status_changed": "billing:read",
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
  /** a FirmwareStatusNotification (data: station_id, job_id, status, state, request_id) */
  "station.firmware_status_changed": "stations:read",
  /** a DiagnosticsStatusNotification / LogStatusNotification (as the firmware one) */
  "station.diagnostics_status_changed": "stations:read",
  /** a charger uploaded its diagnostics file (data: station_id, job_id, size, sha256, file_name) */
  "station.diagnostics_uploaded": "stations:read",
  /** a reservation's state changed (data: reservation_id, status, previous_status, reservation) */
  "reservation.status_changed": "stations:read",
  /** a station's local authorization list changed version (data: version, update_type, entries) */
  "station.local_list_synced": "stations:read",
  /**
   * a location's site power limit was divided anew (data: location_id, max_power_w, allocated_w,
   * live_power_w, allocations as GET …/power-limit shows them)
   */
  "location.power_allocation_changed": "stations:read",
  /** a key's per-minute limit was changed (PUT /v1/admin/api-keys/{key_id}/rate-limit) */
  "api_key.rate_limit_changed": "stations:read",
} as const;
export type EventType = keyof typeof EVENT_TYPES;
export const eventTypeSchema = z.enum(Object.keys(EVENT_TYPES) as [EventType, ...EventType[]]);
