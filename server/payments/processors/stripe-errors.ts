import Stripe from "stripe";
import { ProcessorError } from "./types";

/**
 * Sorts what the Stripe SDK threw into the processor error kinds. The rule that matters: anything
 * that does not prove the request was refused before it took effect is `uncertain`, because the
 * payments service then asks again with the same idempotency key instead of concluding.
 */
export function classifyStripeError(error: unknown): ProcessorError {
  if (error instanceof ProcessorError) return error; // ours, raised before anything was sent
  if (!(error instanceof Stripe.errors.StripeError)) {
    // Thrown mid-call by the SDK or the network stack: the request may have reached Stripe.
    const message = error instanceof Error ? error.message : String(error);
    return new ProcessorError("uncertain", `Stripe call failed: ${message}`);
  }
  const details = {
    // Stripe gives a reused key's refusal a type and no code
    code: error.code ?? (error.rawType === "idempotency_error" ? "idempotency_error" : null),
    declineCode: error.decline_code ?? null,
    httpStatus: error.statusCode ?? null,
  };
  const message = error.message || error.type;
  if (error instanceof Stripe.errors.StripeOAuthError) {
    // connect.stripe.com's own errors (`invalid_client`, `invalid_request`, …), often 401: a
    // definitive refusal of that request, not a bad platform key; a 5xx there may have acted.
    const oauth = { ...details, code: error.rawType ?? error.type };
    return new ProcessorError(
      error.statusCode !== undefined && error.statusCode >= 500 ? "uncertain" : "invalid",
      message,
      oauth,
    );
  }
  if (error.rawType === "idempotency_error") {
    // The key was used before (with other parameters, or the first request is still running):
    // a request under it reached Stripe, and what it did is unknown until the object is read.
    return new ProcessorError("uncertain", message, details);
  }
  if (error instanceof Stripe.errors.StripeConnectionError) {
    // no answer heard: a timeout, a reset, a refused connection
    return new ProcessorError("uncertain", message, details);
  }
  const status = error.statusCode;
  if (status === undefined || status >= 500 || status === 409 || status === 429) {
    // 5xx: Stripe itself may not know; 409: the same key is still being processed; 429: not
    // processed, but asking again with the same key is exactly the remedy.
    return new ProcessorError("uncertain", message, details);
  }
  if (error instanceof Stripe.errors.StripeRateLimitError) {
    return new ProcessorError("uncertain", message, details);
  }
  if (status === 402 || error instanceof Stripe.errors.StripeCardError) {
    return new ProcessorError("declined", message, details);
  }
  if (status === 401) {
    return new ProcessorError(
      "unavailable",
      `Stripe refused the platform's secret key (STRIPE_SECRET_KEY): ${message}`,
      details,
    );
  }
  // Stripe answers "does not have access to account … (or that account does not exist)" alike.
  if (status === 404 || error.code === "account_invalid") {
    return new ProcessorError("not_found", message, details);
  }
  return new ProcessorError("invalid", message, details);
}
