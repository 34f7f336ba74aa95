import { z } from "zod";
import { overviewSchema, projectOverview, validTimeZone } from "../../overview/overview";
import { tenantParams } from "../params";
import { defineRoute } from "../route";

export const overviewRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/overview",
    operationId: "getOverview",
    summary: "A project at a glance",
    description:
      "Stations by state (`online`, `offline`, `charging`, `faulted`: the same rule as `listStations`' `state`), the first-run standing (locations, the first station, the first boot), the alerts (open faults, operations `rejected` or `unknown` in the last 24 hours, webhook deliveries failed or retrying in the last 7 days: these need `webhooks:read`), and with `billing:read` the energy of transactions by start and the revenue of final bills by finalization, per hour today and per day for 30 days in `time_zone` (an IANA zone, default `UTC`), and the running transactions with their latest power. `event_cursor` is the event log's last sequence: read `listEvents` after it to learn when to read again.",
    tag: "Overview",
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams,
    query: z.object({
      time_zone: z
        .string()
        .max(64)
        .refine(validTimeZone, "an IANA time zone, e.g. Europe/London")
        .default("UTC"),
    }),
    status: 200,
    response: overviewSchema,
    handler: async ({ params, query, db, principal }) => ({
      body: await projectOverview({
        tenantId: params.tenant_id,
        scopes: principal.scopes,
        timeZone: query.time_zone,
        db,
      }),
    }),
  }),
];
