import type { z } from "zod";
import { db as defaultDb, type DbTx } from "../db";
import { toPage } from "../lib/pagination";
import type { listPaymentsQuery } from "./payment-schema";
import { paymentInclude, presentPayment } from "./present-payment";

export type ListPaymentsOptions = {
  tenantId: number;
  query: z.infer<typeof listPaymentsQuery>;
  db?: DbTx;
};

/** A tenant's payments, newest first (IDs are time-ordered), after the `after` payment, filtered. */
export async function listPayments({ tenantId, query, db = defaultDb() }: ListPaymentsOptions) {
  const rows = await db.payment.findMany({
    where: {
      tenantId,
      ...(query.after ? { id: { lt: query.after } } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...(query.service ? { service: query.service } : {}),
      ...(query.bill_id ? { billId: query.bill_id } : {}),
    },
    orderBy: { id: "desc" },
    take: query.limit + 1,
    include: paymentInclude,
  });
  return toPage(rows, query.limit, (p) => p.id, presentPayment);
}
