import { db as defaultDb } from "../db";
import { DomainError, notFound } from "../errors";
import { begin, type PaymentChangeOptions } from "./capture-payment";
import { lockPayment } from "./lock-payment";
import { presentPayment } from "./present-payment";

/**
 * Refunds a captured payment in full, once (spec section 4, rule 7): anything but `captured`
 * with an amount is 409 `payment_not_captured`; a refund in flight or done answers the payment
 * as it is.
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
    return presentPayment(payment);
  if (payment.status !== "captured" || payment.capturedMinor === 0)
    throw new DomainError("payment_not_captured", "Only a captured payment is refunded.", {
      payment_id: payment.id,
      payment_status: payment.status,
    });
  return begin(db, payment, "refund", "refunding", payment.capturedMinor);
}
