/**
 * Domain errors: one class with a closed set of codes, thrown by services wherever they run (/v1,
 * the console's tRPC procedures, the OCPP gateway, jobs). A code says what went wrong in the
 * product's words; transports decide how to say it (the /v1 router adds the HTTP status, headers
 * such as `Retry-After` and where each field came from: server/http/errors.ts).
 */
export const ERROR_CODES = [
  // request shape
  "invalid_json",
  "malformed_request",
  "invalid_api_version",
  "idempotency_key_missing",
  "idempotency_key_invalid",
  "unauthenticated",
  "forbidden",
  "insufficient_scope",
  "stations_admin_required",
  "user_token_required",
  "no_grant",
  "not_found",
  "route_not_found",
  "method_not_allowed",
  "idempotency_key_in_progress",
  "payload_too_large",
  "headers_too_large",
  "unsupported_media_type",
  "validation_failed",
  "idempotency_key_reused",
  "rate_limited",
  "internal_error",
  "service_unavailable",
  // resources
  "external_reference_taken",
  "station_name_taken",
  "station_has_history",
  "transaction_active",
  "location_not_found",
  "location_has_stations",
  "station_offline",
  "station_online",
  "connector_not_found",
  "evse_not_found",
  "transaction_not_found",
  "transaction_ended",
  "dispatch_unconfirmed",
  "outcome_unknown",
  "credentials_rate_limited",
  "connection_change_unconfirmed",
  // reservations and local authorization lists (issue 28)
  "connector_reserved",
  "reservation_closed",
  "local_list_busy",
  "webhook_url_invalid",
  "webhook_limit_reached",
  "tariff_invalid",
  "displays_disabled",
  "project_urls_disabled",
  // teams and keys
  "last_owner",
  "already_member",
  "invite_pending",
  "invite_closed",
  "invite_expired",
  "project_limit",
  "billing_suspended",
  "team_billing_off",
  "project_name_taken",
  "scope_mix",
  "tariff_complex",
  "transaction_start_unknown",
  "tariff_not_valid_at",
  // bills (and the payment checks bills make)
  "bill_not_open",
  "bill_simulated",
  "bill_start_in_progress",
  "bill_final",
  "bill_not_final",
  "bill_exceeds_hold",
  "hold_in_use",
  "payment_not_authorized",
  "transaction_mismatch",
  "transaction_times_invalid",
  // the tenant's payment account
  "payment_service_unavailable",
  "payment_account_connected",
  "payment_account_taken",
  "payment_account_unreachable",
  // payments
  "payment_exists",
  "simulator_not_allowed",
  "payment_account_not_ready",
  "bill_externally_settled",
  "payment_not_captured",
  "payment_already_captured",
  "payment_already_released",
  "payment_already_refunded",
  "payment_change_in_progress",
  // external charging sessions and settlement reports
  "connector_session_open",
  "session_simulated",
  "session_closed",
  "session_start_reserved",
  "session_stop_reserved",
  "session_not_charging",
  "session_not_final",
  "settlement_outcome_final",
  "settlement_report_conflict",
  "settlement_capture_missing",
  "capture_exceeds_bill",
  "refund_exceeds_captures",
  // sandbox sessions (server/sandbox/README.md, Errors): each says what to do instead
  "no_free_connector",
  "session_stopped",
  "session_already_stopped",
  "session_not_settled",
  "session_already_refunded",
  "card_not_in_sandbox",
  "sandbox_station_managed",
  // custom OCPP domains (server/ocpp-domains/README.md)
  "ocpp_domain_invalid",
  "ocpp_domain_taken",
  "ocpp_domain_limit",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** A field a service refuses, by its path in the input (`address.street`, `elements.0.price`). */
export type FieldIssue = { field: string; message: string; location?: "path" | "query" | "body" };

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  /** when retrying may succeed (limits): transports say it (`Retry-After`) */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = "DomainError";
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const notFound = (what = "resource") =>
  new DomainError("not_found", `No such ${what}.`, { resource: what });

/** A refusal of named input fields (`details.fields`), e.g. 422 `validation_failed`. */
export const fieldError = (code: ErrorCode, message: string, fields: FieldIssue[]) =>
  new DomainError(code, message, { fields });
