import { z } from "zod";
import { presentTransaction, transactionSchema } from "../../charging/present-transaction";
import { notFound } from "../../errors";
import { MAX_CURSOR, pageSchema, paginationQuery, toPage } from "../../lib/pagination";
import { idParam, tenantParams } from "../params";
import { defineRoute } from "../route";

export const transactionRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/transactions",
    operationId: "listTransactions",
    summary: "List transactions",
    description:
      "Oldest first by default (`order=asc`: `after` is the last `id` seen, 0 to start). `order=desc` lists newest first: `after` 0 starts at the newest, and a page's `next_cursor` continues with lower ids. `status=active` or `status=ended` narrows the list; `station_id` to one station.",
    tag: "Transactions",
    auth: "tenant",
    scopes: ["billing:read"],
    params: tenantParams,
    query: paginationQuery.extend({
      station_id: z.coerce.number().int().min(1).max(MAX_CURSOR).optional(),
      status: z.enum(["active", "ended"]).optional(),
      order: z.enum(["asc", "desc"]).default("asc"),
    }),
    status: 200,
    response: pageSchema(transactionSchema),
    handler: async ({ params, query, db }) => {
      // Newest first starts at the top when `after` is 0; oldest first continues above `after`.
      const cursor =
        query.order === "asc" ? { gt: query.after } : query.after ? { lt: query.after } : undefined;
      const rows = await db.transaction.findMany({
        where: {
          tenantId: params.tenant_id,
          id: cursor,
          ...(query.station_id ? { stationId: query.station_id } : {}),
          ...(query.status ? { endedAt: query.status === "active" ? null : { not: null } } : {}),
        },
        orderBy: { id: query.order },
        take: query.limit + 1,
      });
      return { body: toPage(rows, query.limit, (t) => t.id, presentTransaction) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/transactions/{transaction_id}",
    operationId: "getTransaction",
    summary: "Read a transaction",
    tag: "Transactions",
    auth: "tenant",
    scopes: ["billing:read"],
    params: z.object({ tenant_id: idParam, transaction_id: idParam }),
    status: 200,
    response: transactionSchema,
    handler: async ({ params, db }) => {
      const row = await db.transaction.findFirst({
        where: { id: params.transaction_id, tenantId: params.tenant_id },
      });
      if (!row) throw notFound("transaction");
      return { body: presentTransaction(row) };
    },
  }),
];
