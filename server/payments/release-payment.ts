import { db as defaultDb } from "../db";
import { requireHoldUnused } from "../bills/settlement";
import { notFound } from "../errors";
import { begin, requireAuthorized, type PaymentChangeOptions } from "./capture-payment";
import { lockPayment } from "./lock-payment";
import { repeatedChange } from "./repeated-change";

/**
 * Frees an unused hold (spec section 4, rule 7). It never stops a charger: while the hold may
 * still be owed (a start dispatching, a session charging or ended and not final, a final bill
 * with an amount) it is 409 `hold_in_use`. A release asked again under a new key (the same key
 * replays the first answer) is 409 `payment_change_in_progress` while it is in flight, then
 * `payment_already_released`.
 */
export async function releasePayment({
  tenantId,
  paymentId,
  db = defaultDb(),
}: PaymentChangeOptions) {
  const locked = await lockPayment(db, { tenantId, paymentId });
  if (!locked) throw notFound("payment");
  const { bill, payment } = locked;
  if (payment.status === "releasing" || payment.status === "released")
    throw repeatedChange(payment);
  requireAuthorized(payment);
  await requireHoldUnused(db, bill);
  return begin(db, payment, "release", "releasing", payment.amountMinor);
}
