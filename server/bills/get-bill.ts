import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { billInclude, presentBill } from "./present-bill";

export type GetBillOptions = { tenantId: number; billId: string; db?: DbTx };

/** One of the tenant's bills; another tenant's reads as not found. */
export async function getBill({ tenantId, billId, db = defaultDb() }: GetBillOptions) {
  const bill = await db.bill.findFirst({ where: { id: billId, tenantId }, include: billInclude });
  if (!bill) throw notFound("bill");
  return presentBill(bill);
}
