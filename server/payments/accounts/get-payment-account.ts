import { db as defaultDb, type DbTx } from "../../db";
import { readPaymentAccount } from "./present-payment-account";

export type GetPaymentAccountOptions = { tenantId: number; db?: DbTx };

/** The tenant's payment account as last stored (`not_connected` when it never had one). */
export async function getPaymentAccount({ tenantId, db = defaultDb() }: GetPaymentAccountOptions) {
  return readPaymentAccount(db, tenantId);
}
