import { DomainError, fieldError } from "../../errors";
import { cardProcessor } from "../processors";
import { isProcessorError, type Availability, type ConnectAccounts } from "../processors/types";

/** What the payment-account services ask of Stripe: Connect accounts, and whether it is set up. */
export type AccountProcessor = ConnectAccounts & { availability(): Availability };

export const defaultAccounts = (): AccountProcessor => cardProcessor();

/** Without the platform's Stripe keys nothing here can work: say so before anything is sent. */
export function requireAvailable(accounts: AccountProcessor): void {
  const availability = accounts.availability();
  if (!availability.available) throw unavailable(availability.reason);
}

const unavailable = (reason: string) =>
  new DomainError(
    "payment_service_unavailable",
    "Card payments are not set up on this service, so no Stripe account can be connected.",
    { service: "card", reason },
  );

/**
 * A failed Stripe call in the product's words. `uncertain` (timeout, 5xx) is 503 and may be asked
 * again: every call here is a read, a fresh link, or a creation under a fixed idempotency key.
 * `field` names the input a definitive refusal is about, when there is one.
 */
export function accountCallFailure(error: unknown, field?: "account_ref" | "country"): unknown {
  if (!isProcessorError(error)) return error;
  switch (error.kind) {
    case "unavailable":
      return unavailable(error.message);
    case "uncertain":
      return new DomainError(
        "service_unavailable",
        "Stripe did not answer in time; try again.",
        { processor: "stripe", reason: error.message },
        { retryAfterSeconds: 5 },
      );
    case "not_found":
      return field
        ? fieldError("validation_failed", "Stripe knows no such account for this platform.", [
            { field, message: "not an account this platform can reach", location: "body" },
          ])
        : new DomainError(
            "payment_account_unreachable",
            "Stripe says this platform cannot reach the connected account (deleted, or access revoked): disconnect it and connect again.",
            { processor: "stripe", reason: error.message },
          );
    default:
      return field
        ? fieldError("validation_failed", `Stripe refused it: ${error.message}`, [
            { field, message: error.message, location: "body" },
          ])
        : error;
  }
}
