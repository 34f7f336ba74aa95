import { z } from "zod";
import { eventSchema, listEvents } from "../../events/list-events";
import { MAX_CURSOR, paginationQuery } from "../pagination";
import { tenantParams } from "../params";
import { defineRoute } from "../route";

export const eventRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/events",
    operationId: "listEvents",
    summary: "The tenant's event log, in sequence order",
    description:
      "Continue with `after` = `next_cursor`. `next_cursor` is the last sequence returned, or `after` itself on an empty page, so a reader can keep polling; a reader that pages this way never misses an event that commits later. `type` takes one type or a comma-separated list. Billing events (`bill.finalized`, `charging_session.status_changed`) are listed only for keys that also hold `billing:read`.",
    tag: "Events",
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams,
    query: paginationQuery.extend({
      type: z
        .string()
        .min(1)
        .max(500)
        .regex(/^[a-z_.]+(,[a-z_.]+)*$/, "must be event types separated by commas")
        .optional(),
      station_id: z.coerce.number().int().min(1).max(MAX_CURSOR).optional(),
    }),
    status: 200,
    response: z.object({
      data: z.array(eventSchema),
      next_cursor: z.number().int(),
      has_more: z.boolean(),
    }),
    handler: async ({ params, query, db, principal }) => ({
      body: await listEvents({
        tenantId: params.tenant_id,
        after: query.after,
        limit: query.limit,
        types: query.type?.split(","),
        stationId: query.station_id,
        scopes: principal.scopes,
        db,
      }),
    }),
  }),
];
