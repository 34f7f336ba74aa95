/**
 * Errors the pricing engine raises. No HTTP here: the API maps `code` to its own error table
 * (`transaction_start_unknown` and `tariff_not_valid_at` are 409 there; `session_invalid` means the
 * core's transaction data is inconsistent, which finalization reports as a 409 conflict).
 */
export type PricingErrorCode =
  "transaction_start_unknown" | "tariff_not_valid_at" | "session_invalid";

export class PricingError extends Error {
  readonly code: PricingErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: PricingErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "PricingError";
    this.code = code;
    this.details = details;
  }
}

export function isPricingError(error: unknown): error is PricingError {
  return error instanceof PricingError;
}
