import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import { log } from "../log";
import { applyObserved, type Observed } from "./apply-intent";
import { lockPayment } from "./lock-payment";
import { paymentProcessor } from "./processors";
import { isProcessorError, type MerchantAccount } from "./processors/types";
import type { PaymentRow } from "./present-payment";

/**
 * Statuses whose processor state may move on without us asking (a read reconciles them): a
 * captured payment may be refunded at the processor (its dashboard), which its webhook reports.
 */
const UNSETTLED = new Set([
  "pending",
  "authorized",
  "capturing",
  "releasing",
  "captured",
  "refunding",
]);

export const merchantOf = (payment: {
  tenantId: number;
  processorAccount: string | null;
}): MerchantAccount => ({ tenantId: payment.tenantId, accountRef: payment.processorAccount });

/**
 * Reconciles a payment by reading the processor (the checkout while pending, then its intent),
 * outside any transaction, and applies what it shows under the payment's lock. Reads change
 * nothing at the processor, so they need no journal key; what they prove is applied only
 * forward (`applyObserved`). Returns the payment as it is after, or null for an unknown one.
 * A read that fails leaves the payment as it was (reads are asked again later).
 */
export async function syncPayment({
  db,
  paymentId,
}: {
  db: Db;
  paymentId: string;
}): Promise<PaymentRow | null> {
  const payment = await db.payment.findUnique({ where: { id: paymentId } });
  if (!payment) return null;
  let observed: Observed | null = null;
  if (UNSETTLED.has(payment.status) && (payment.processorCheckoutRef || payment.processorIntentRef))
    observed = await read(payment).catch((error: unknown) => {
      log.warn("payment read failed", {
        payment_id: payment.id,
        error: isProcessorError(error) ? error.toJSON() : String(error),
      });
      return null;
    });
  return inTransaction(db, async (tx) => {
    const locked = await lockPayment(tx, { tenantId: payment.tenantId, paymentId });
    if (!locked) return null;
    return observed ? applyObserved(tx, locked.payment, observed) : locked.payment;
  });
}

async function read(payment: {
  service: string;
  status: string;
  tenantId: number;
  processorAccount: string | null;
  processorCheckoutRef: string | null;
  processorIntentRef: string | null;
}): Promise<Observed> {
  const processor = paymentProcessor(payment.service === "card" ? "card" : "simulator");
  const account = merchantOf(payment);
  const checkout =
    payment.status === "pending" && payment.processorCheckoutRef
      ? await processor.readCheckout(payment.processorCheckoutRef, account)
      : null;
  const intentRef = payment.processorIntentRef ?? checkout?.intentRef ?? null;
  const intent = intentRef ? await processor.readIntent(intentRef, account) : null;
  return { checkout, intent };
}
