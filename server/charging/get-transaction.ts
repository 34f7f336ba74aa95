import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { presentTransaction } from "./present-transaction";

export type GetTransactionOptions = { tenantId: number; transactionId: number; db?: DbTx };

export async function getTransaction({
  tenantId,
  transactionId,
  db = defaultDb(),
}: GetTransactionOptions) {
  const row = await db.transaction.findFirst({ where: { id: transactionId, tenantId } });
  if (!row) throw notFound("transaction");
  return presentTransaction(row);
}
