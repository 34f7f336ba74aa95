import { z } from "zod";
import { getTransaction } from "../../charging/get-transaction";
import { listTransactions } from "../../charging/list-transactions";
import { transactionSchema } from "../../charging/present-transaction";
import { resourceIdQuery } from "../../lib/int4";
import { pageSchema, paginationQuery } from "../../lib/pagination";
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
      station_id: resourceIdQuery.optional(),
      status: z.enum(["active", "ended"]).optional(),
      order: z.enum(["asc", "desc"]).default("asc"),
    }),
    status: 200,
    response: pageSchema(transactionSchema),
    handler: async ({ params, query, db }) => ({
      body: await listTransactions({
        tenantId: params.tenant_id,
        page: query,
        stationId: query.station_id,
        status: query.status,
        order: query.order,
        db,
      }),
    }),
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
    handler: async ({ params, db }) => ({
      body: await getTransaction({
        tenantId: params.tenant_id,
        transactionId: params.transaction_id,
        db,
      }),
    }),
  }),
];
