import type { z } from "zod";
import { db as defaultDb, type DbTx } from "../db";
import { toPage } from "../lib/pagination";
import type { listBillsQuery } from "./bill-schema";
import { billInclude, presentBill } from "./present-bill";

export type ListBillsOptions = {
  tenantId: number;
  query: z.infer<typeof listBillsQuery>;
  db?: DbTx;
};

/** A tenant's bills, newest first (IDs are time-ordered), after the `after` bill, filtered. */
export async function listBills({ tenantId, query, db = defaultDb() }: ListBillsOptions) {
  const rows = await db.bill.findMany({
    where: {
      tenantId,
      ...(query.after ? { id: { lt: query.after } } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...(query.source ? { source: query.source } : {}),
      ...(query.station_id ? { stationId: query.station_id } : {}),
      ...(query.transaction_id ? { transactionId: query.transaction_id } : {}),
    },
    orderBy: { id: "desc" },
    take: query.limit + 1,
    include: billInclude,
  });
  return toPage(rows, query.limit, (b) => b.id, presentBill);
}
