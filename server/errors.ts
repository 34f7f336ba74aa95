/**
 * One error class with a closed set of codes and one code-to-status table, used by /v1, tRPC and
 * the OCPP gateway alike. Every non-2xx /v1 answer has the shape `{ error: { code, message, details } }`.
 */
export const ERROR_STATUS = {
  // request shape
  invalid_json: 400,
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
  station_offline: 409,
  station_online: 409,
  connector_not_found: 422,
  transaction_not_found: 422,
  transaction_ended: 409,
  dispatch_unconfirmed: 502,
  outcome_unknown: 503,
  credentials_rate_limited: 429,
  webhook_url_invalid: 422,
  webhook_limit_reached: 409,
  tariff_invalid: 422,
  // teams and keys
  last_owner: 409,
  already_member: 409,
  invite_pending: 409,
  invite_closed: 409,
  invite_expired: 410,
  project_limit: 409,
  project_name_taken: 409,
  scope_mix: 422,
  tariff_complex: 409,
  transaction_start_unknown: 409,
  tariff_not_valid_at: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorBody = {
  error: { code: ErrorCode; message: string; details: Record<string, unknown> };
};

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

export const notFound = (what = "resource") =>
  new ApiError("not_found", `No such ${what}.`, { resource: what });
