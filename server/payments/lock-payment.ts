import type { DbTx } from "../db";
import { lockBill } from "../bills/lock-bill";
import type { BillRow } from "../bills/present-bill";
import { paymentInclude, type PaymentRow } from "./present-payment";

export type LockedPayment = { bill: BillRow; payment: PaymentRow };

/**
 * Locks a tenant's payment for a change in the lock order (server/db/README.md): its bill
 * (a csms bill's station first, `lockBill`), then the payment row. The payment's bill never
 * changes, so it is read before the locks. Null when the tenant has no such payment.
 */
export async function lockPayment(
  tx: DbTx,
  { tenantId, paymentId }: { tenantId: number; paymentId: string },
): Promise<LockedPayment | null> {
  const found = await tx.payment.findFirst({
    where: { id: paymentId, tenantId },
    select: { billId: true },
  });
  if (!found) return null;
  const bill = await lockBill(tx, { tenantId, billId: found.billId });
  if (!bill) return null;
  await tx.$queryRaw`SELECT id FROM payments WHERE id = ${paymentId} FOR NO KEY UPDATE`;
  const payment = await tx.payment.findUniqueOrThrow({
    where: { id: paymentId },
    include: paymentInclude,
  });
  return { bill, payment };
}
