import { z } from "zod";
import { getTransaction, listMeterSamples } from "../../charging/get-transaction";
import { listTransactions } from "../../charging/list-transactions";
import { meterSampleSchema, transactionSchema } from "../../charging/present-transaction";
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
      "Oldest first by default (`order=asc`: `after` is the last `id` seen, 0 to start). `order=desc` lists newest first: `after` 0 starts at the newest, and a page's `next_cursor` continues with lower ids. `status=active` or `status=ended` narrows the list; `station_id` to one station; `started_from` and `started_before` (ISO 8601 date-times) to transactions started in that range.",
    tag: "Transactions",
    auth: "tenant",
    scopes: ["billing:read"],
    params: tenantParams,
    query: paginationQuery.extend({
      station_id: resourceIdQuery.optional(),
      status: z.enum(["active", "ended"]).optional(),
      order: z.enum(["asc", "desc"]).default("asc"),
      started_from: z.iso.datetime({ offset: true }).optional(),
      started_before: z.iso.datetime({ offset: true }).optional(),
    }),
    status: 200,
    response: pageSchema(transactionSchema),
    handler: async ({ params, query, db }) => ({
      body: await listTransactions({
        tenantId: params.tenant_id,
        page: query,
        stationId: query.station_id,
        status: query.status,
        ...(query.started_from ? { startedFrom: new Date(query.started_from) } : {}),
        ...(query.started_before ? { startedBefore: new Date(query.started_before) } : {}),
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
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/transactions/{transaction_id}/meter-samples",
    operationId: "listTransactionMeterSamples",
    summary: "A transaction's meter samples",
    description:
      "Every meter sample the charger sent for the transaction, in the charger's time order (not thinned like the event log's `meter.sampled`), up to 8,640 (a day of 10-second samples; `truncated` says when there were more). `energy_wh` is the energy delivered so far; unreported values are null.",
    tag: "Transactions",
    auth: "tenant",
    scopes: ["billing:read"],
    params: z.object({ tenant_id: idParam, transaction_id: idParam }),
    status: 200,
    response: z.object({ data: z.array(meterSampleSchema), truncated: z.boolean() }),
    handler: async ({ params, db }) => ({
      body: await listMeterSamples({
        tenantId: params.tenant_id,
        transactionId: params.transaction_id,
        db,
      }),
    }),
  }),
];
