import { db as defaultDb, type DbTx } from "../../db";
import { notFound } from "../../errors";
import { presentPaymentAccount } from "./present-payment-account";

export type DisconnectPaymentAccountOptions = { tenantId: number; db?: DbTx };

/**
 * Stops the service from charging on the tenant's connected account. Nothing is sent to Stripe:
 * the account stays its owner's, with its money; the row stays as the record of who connected it
 * and when it was disconnected. Payments already made on it stay readable through their own
 * records (they name the account they were made on). 404 `not_found` when none is connected.
 */
export async function disconnectPaymentAccount({
  tenantId,
  db = defaultDb(),
}: DisconnectPaymentAccountOptions) {
  const { count } = await db.paymentAccount.updateMany({
    where: { tenantId, status: { not: "disconnected" } },
    data: { status: "disconnected", chargesEnabled: false, disconnectedAt: new Date() },
  });
  if (count === 0) throw notFound("payment_account");
  return presentPaymentAccount(
    tenantId,
    await db.paymentAccount.findUnique({ where: { tenantId } }),
  );
}
