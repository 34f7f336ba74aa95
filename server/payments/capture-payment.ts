import { db as defaultDb, type DbTx } from "../db";
import { captureDecision } from "../bills/settlement";
import { DomainError, notFound } from "../errors";
import { lockPayment } from "./lock-payment";
import { newAttempt } from "./new-attempt";
import { paymentInclude, presentPayment, type PaymentRow } from "./present-payment";
import { repeatedChange } from "./repeated-change";

export type PaymentChangeOptions = { tenantId: number; paymentId: string; db?: DbTx };

/**
 * Captures the bill's final amount (spec section 4, rules 6 and 7): no amount is taken from the
 * caller. A zero final bill releases the hold instead; a bill above the hold is 409
 * `bill_exceeds_hold` (reconciliation); a bill not final is 409 `bill_not_final`. Under the
 * bill's and the payment's locks, so of two captures at once the second sees the first's
 * attempt in flight (`capturing`) or done: one capture, ever. A capture asked again under a new
 * key (the same key replays the first answer) is a 409 naming where the payment is
 * (`repeatedChange`): in flight, captured, refunded, or, for a zero bill, released.
 */
export async function capturePayment({
  tenantId,
  paymentId,
  db = defaultDb(),
}: PaymentChangeOptions) {
  const locked = await lockPayment(db, { tenantId, paymentId });
  if (!locked) throw notFound("payment");
  const { bill, payment } = locked;
  const settling = ["capturing", "captured", "refunding", "refunded"];
  const zeroRelease = ["releasing", "released"].includes(payment.status) && bill.totalMinor === 0;
  if (settling.includes(payment.status) || zeroRelease) throw repeatedChange(payment);
  requireAuthorized(payment);
  const decision = captureDecision(bill);
  if (decision.action === "release")
    return begin(db, payment, "release", "releasing", payment.amountMinor);
  return begin(db, payment, "capture", "capturing", decision.amountMinor);
}

/** Only an authorized, unflagged hold is captured or released. */
export function requireAuthorized(payment: PaymentRow) {
  if (payment.status === "authorized" && !payment.needsReconciliation) return;
  throw new DomainError("payment_not_authorized", "The payment holds no authorized amount.", {
    payment_id: payment.id,
    payment_status: payment.status,
    needs_reconciliation: payment.needsReconciliation,
  });
}

/** Moves the payment to its in-flight status and journals the call. */
export async function begin(
  db: DbTx,
  payment: PaymentRow,
  kind: "capture" | "release" | "refund",
  status: "capturing" | "releasing" | "refunding",
  amountMinor: number,
) {
  await db.payment.update({ where: { id: payment.id }, data: { status } });
  await newAttempt(db, payment.id, kind, amountMinor);
  return presentPayment(
    await db.payment.findUniqueOrThrow({ where: { id: payment.id }, include: paymentInclude }),
  );
}
