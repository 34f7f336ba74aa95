import { DomainError } from "../errors";
import type { PaymentRow } from "./present-payment";

/** What each in-flight status is on its way to, in words. */
const IN_FLIGHT: Record<string, string> = {
  capturing: "a capture",
  releasing: "a release",
  refunding: "a refund",
};

/**
 * The refusal of a capture, release or refund asked under a new Idempotency-Key when the payment
 * has already moved that way (spec section 4, rule 7: one capture, one full refund). A 200 with
 * the payment would read as a new success to a client that lost the first answer, so it is a 409
 * whose code names the payment's state, whichever of the three was asked: while a call is in
 * flight (`capturing`, `releasing`, `refunding`) `payment_change_in_progress` (read the payment
 * later), then `payment_already_captured`, `payment_already_released` or
 * `payment_already_refunded` (a capture asked again after a refund is `payment_already_refunded`).
 * The same key still replays the first answer (the /v1 idempotency record, before this runs).
 * `details.payment_status` is the status under the bill's lock.
 */
export function repeatedChange(payment: PaymentRow): DomainError {
  const details = { payment_id: payment.id, payment_status: payment.status };
  const inFlight = IN_FLIGHT[payment.status];
  if (inFlight)
    return new DomainError(
      "payment_change_in_progress",
      `The payment is ${payment.status}: ${inFlight} asked for earlier is still in flight. Read the payment for its outcome; nothing new was started.`,
      details,
    );
  if (payment.status === "released")
    return new DomainError(
      "payment_already_released",
      "The payment's hold was already released; nothing new was started.",
      details,
    );
  if (payment.status === "refunded")
    return new DomainError(
      "payment_already_refunded",
      "The payment was already refunded in full (a payment is refunded once); nothing new was started.",
      details,
    );
  return new DomainError(
    "payment_already_captured",
    "The payment was already captured (a payment is captured once); nothing new was started.",
    details,
  );
}
