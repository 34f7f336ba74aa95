import { db as defaultDb, type Db, type DbTx } from "../db";
import { notFound } from "../errors";
import { paymentInclude, presentPayment } from "./present-payment";
import { syncPayment } from "./sync-payment";

/** Statuses a read reconciles with the processor: pending, in flight, or a hold past its lapse. */
function needsRead(p: { status: string; expiresAt: Date | null }, now: Date) {
  if (["pending", "capturing", "releasing", "refunding"].includes(p.status)) return true;
  return p.status === "authorized" && p.expiresAt !== null && p.expiresAt <= now;
}

/**
 * One of the tenant's payments. A pending or in-flight payment (or an authorized one past its
 * lapse) is first reconciled by reading the processor: a redirect back from the checkout proves
 * nothing, the processor's intent does. Another tenant's payment reads as not found.
 */
export async function getPayment({
  tenantId,
  paymentId,
  db = defaultDb(),
  reconcileWith,
}: {
  tenantId: number;
  paymentId: string;
  db?: DbTx;
  /** the process's client, outside any transaction, to read the processor through */
  reconcileWith?: Db;
}) {
  const payment = await db.payment.findFirst({ where: { id: paymentId, tenantId } });
  if (!payment) throw notFound("payment");
  if (reconcileWith && needsRead(payment, new Date()))
    await syncPayment({ db: reconcileWith, paymentId });
  return presentPayment(
    await db.payment.findUniqueOrThrow({ where: { id: paymentId }, include: paymentInclude }),
  );
}
