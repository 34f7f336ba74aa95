import { z } from "zod";
import { ERROR_CODES, type DomainError, type ErrorCode, type FieldIssue } from "../errors";

/** The HTTP status of every domain error code: the one table /v1, tRPC and the OpenAPI document read. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  // request shape
  invalid_json: 400,
  malformed_request: 400,
  invalid_api_version: 400,
  idempotency_key_missing: 400,
  idempotency_key_invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  insufficient_scope: 403,
  stations_admin_required: 403,
  user_token_required: 403,
  no_grant: 403,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_progress: 409,
  payload_too_large: 413,
  headers_too_large: 431,
  unsupported_media_type: 415,
  validation_failed: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  // resources
  external_reference_taken: 409,
  station_name_taken: 409,
  station_has_history: 409,
  transaction_active: 409,
  location_not_found: 422,
  location_has_stations: 409,
  station_offline: 409,
  station_online: 409,
  connector_not_found: 422,
  evse_not_found: 422,
  transaction_not_found: 422,
  transaction_ended: 409,
  dispatch_unconfirmed: 502,
  outcome_unknown: 503,
  credentials_rate_limited: 429,
  connection_change_unconfirmed: 422,
  connector_reserved: 409,
  reservation_closed: 409,
  local_list_busy: 409,
  webhook_url_invalid: 422,
  ocpp_domain_invalid: 422,
  ocpp_domain_taken: 409,
  ocpp_domain_limit: 409,
  webhook_limit_reached: 409,
  tariff_invalid: 422,
  displays_disabled: 409,
  project_urls_disabled: 409,
  // teams and keys
  last_owner: 409,
  already_member: 409,
  invite_pending: 409,
  invite_closed: 409,
  invite_expired: 410,
  project_limit: 409,
  billing_suspended: 402,
  team_billing_off: 409,
  project_name_taken: 409,
  scope_mix: 422,
  tariff_complex: 409,
  transaction_start_unknown: 409,
  tariff_not_valid_at: 409,
  // bills
  bill_not_open: 409,
  bill_simulated: 409,
  bill_start_in_progress: 409,
  bill_final: 409,
  bill_not_final: 409,
  bill_exceeds_hold: 409,
  hold_in_use: 409,
  payment_not_authorized: 409,
  transaction_mismatch: 409,
  transaction_times_invalid: 409,
  // the tenant's payment account
  payment_service_unavailable: 409,
  payment_account_connected: 409,
  payment_account_taken: 409,
  payment_account_unreachable: 409,
  // payments
  payment_exists: 409,
  simulator_not_allowed: 409,
  payment_account_not_ready: 409,
  bill_externally_settled: 409,
  payment_not_captured: 409,
  payment_already_captured: 409,
  payment_already_released: 409,
  payment_already_refunded: 409,
  payment_change_in_progress: 409,
  // external charging sessions
  connector_session_open: 409,
  session_simulated: 409,
  session_closed: 409,
  session_start_reserved: 409,
  session_stop_reserved: 409,
  session_not_charging: 409,
  session_not_final: 409,
  settlement_outcome_final: 409,
  settlement_report_conflict: 409,
  settlement_capture_missing: 409,
  capture_exceeds_bill: 409,
  refund_exceeds_captures: 409,
  // sandbox sessions
  no_free_connector: 409,
  session_stopped: 409,
  session_already_stopped: 409,
  session_not_settled: 409,
  session_already_refunded: 409,
  card_not_in_sandbox: 409,
  sandbox_station_managed: 409,
};

/** Every non-2xx /v1 answer: `{ error: { code, message, details } }` (the OpenAPI document's `Error`). */
export const errorBodySchema = z.strictObject({
  error: z.strictObject({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const errorBody = (error: DomainError): ErrorBody => ({
  error: { code: error.code, message: error.message, details: error.details },
});

/** Headers an error's answer carries: `Retry-After` for limits, the challenge on a 401, `Allow` on a 405. */
export function errorHeaders(error: DomainError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined)
    headers["Retry-After"] = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
  if (error.code === "unauthenticated") headers["WWW-Authenticate"] = 'Bearer realm="v1"';
  const allowed = error.details.allowed_methods;
  if (error.code === "method_not_allowed" && Array.isArray(allowed))
    headers.Allow = allowed.join(", ");
  return headers;
}

/**
 * Names where each refused field came from (`path`, `query` or `body`), for issues a service raised
 * without saying: the first segment of the field's path is looked up in the request's parts.
 */
export function locateFields(
  error: DomainError,
  parts: { params: unknown; query: unknown; body: unknown },
): DomainError {
  const fields = error.details.fields;
  if (!Array.isArray(fields)) return error;
  const has = (part: unknown, key: string) =>
    typeof part === "object" && part !== null && Object.hasOwn(part, key);
  for (const issue of fields as FieldIssue[]) {
    if (issue.location) continue;
    const head = issue.field.split(/[.[]/)[0] ?? "";
    issue.location = has(parts.params, head) ? "path" : has(parts.query, head) ? "query" : "body";
  }
  return error;
}
