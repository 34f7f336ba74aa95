import { db as defaultDb, type DbTx } from "../../db";
import { presentPaymentAccount } from "./present-payment-account";

export type GetPaymentAccountOptions = { tenantId: number; db?: DbTx };

/** The tenant's payment account as last stored (`not_connected` when it never had one). */
export async function getPaymentAccount({ tenantId, db = defaultDb() }: GetPaymentAccountOptions) {
  const row = await db.paymentAccount.findUnique({ where: { tenantId } });
  return presentPaymentAccount(tenantId, row);
}
