import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import { presentPayment, type PaymentRow } from "./present-payment";

/** Payment event types; like bill events, read and subscribed with `billing:read`. */
export type PaymentEventType =
  | "payment.authorized"
  | "payment.failed"
  | "payment.captured"
  | "payment.released"
  | "payment.refunded"
  | "payment.expired"
  | "payment.reconciliation_required"
  /** the processor failed a refund after accepting it: the payment is `captured` again */
  | "payment.refund_failed";

/** The event a payment's new status announces, if any. */
export const EVENT_OF_STATUS: Partial<Record<string, PaymentEventType>> = {
  authorized: "payment.authorized",
  failed: "payment.failed",
  captured: "payment.captured",
  released: "payment.released",
  refunded: "payment.refunded",
  expired: "payment.expired",
};

/**
 * Appends a payment event with the payment as /v1 shows it, in the caller's transaction: after
 * the bill and payment rows, the tenant's event counter comes last (server/db/README.md).
 */
export async function appendPaymentEvent(tx: DbTx, type: PaymentEventType, payment: PaymentRow) {
  await appendEvent({
    db: tx,
    tenantId: payment.tenantId,
    type,
    resourceId: payment.id,
    data: { payment: presentPayment(payment) },
  });
}
