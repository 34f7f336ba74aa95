import { db as defaultDb } from "../db";
import { DomainError, notFound } from "../errors";
import { begin, type PaymentChangeOptions } from "./capture-payment";
import { lockPayment } from "./lock-payment";
import { repeatedChange } from "./repeated-change";

/**
 * Refunds a captured payment in full, once (spec section 4, rule 7): anything but `captured`
 * with an amount is 409 `payment_not_captured`. A refund asked again under a new key (the same
 * key replays the first answer) is 409 `payment_change_in_progress` while it is in flight, then
 * `payment_already_refunded`.
 */
export async function refundPayment({
  tenantId,
  paymentId,
  db = defaultDb(),
}: PaymentChangeOptions) {
  const locked = await lockPayment(db, { tenantId, paymentId });
  if (!locked) throw notFound("payment");
  const { payment } = locked;
  if (payment.status === "refunding" || payment.status === "refunded")
    throw repeatedChange(payment);
  if (payment.status !== "captured" || payment.capturedMinor === 0)
    throw new DomainError("payment_not_captured", "Only a captured payment is refunded.", {
      payment_id: payment.id,
      payment_status: payment.status,
    });
  return begin(db, payment, "refund", "refunding", payment.capturedMinor);
}
