import { db as defaultDb, type DbTx } from "../db";
import { toPage, type Pagination } from "../lib/pagination";
import { presentTransaction, transactionInclude } from "./present-transaction";

export type ListTransactionsOptions = {
  tenantId: number;
  page: Pagination;
  stationId?: number;
  status?: "active" | "ended";
  /** started at or after */
  startedFrom?: Date;
  /** started before */
  startedBefore?: Date;
  order: "asc" | "desc";
  db?: DbTx;
};

/**
 * A project's transactions by ID. Oldest first continues above `page.after`; newest first starts
 * at the newest when `page.after` is 0 and otherwise continues below it.
 */
export async function listTransactions({
  tenantId,
  page,
  stationId,
  status,
  startedFrom,
  startedBefore,
  order,
  db = defaultDb(),
}: ListTransactionsOptions) {
  const cursor = order === "asc" ? { gt: page.after } : page.after ? { lt: page.after } : undefined;
  const rows = await db.transaction.findMany({
    where: {
      tenantId,
      id: cursor,
      ...(stationId ? { stationId } : {}),
      ...(status ? { endedAt: status === "active" ? null : { not: null } } : {}),
      ...(startedFrom || startedBefore
        ? {
            startedAt: {
              ...(startedFrom ? { gte: startedFrom } : {}),
              ...(startedBefore ? { lt: startedBefore } : {}),
            },
          }
        : {}),
    },
    include: transactionInclude,
    orderBy: { id: order },
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, (t) => t.id, presentTransaction);
}
