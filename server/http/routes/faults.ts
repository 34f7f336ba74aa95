import { z } from "zod";
import { listStationFaults } from "../../stations/list-station-faults";
import { faultSchema } from "../../stations/station-schema";
import { pageSchema, paginationQuery } from "../../lib/pagination";
import { stationParams } from "../params";
import { defineRoute } from "../route";

export const faultRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/stations/{station_id}/faults",
    operationId: "listStationFaults",
    summary: "Open and recent faults of a station, newest first",
    description:
      "`open=true` lists open faults only. Page with `after` = the previous page's `next_cursor` (faults with a lower `fault_id`); `next_cursor` is null on the last page. Cleared faults are kept 90 days.",
    tag: "Stations",
    auth: "tenant",
    scopes: ["stations:read"],
    params: stationParams,
    query: paginationQuery.extend({ open: z.enum(["true", "false"]).optional() }),
    status: 200,
    response: pageSchema(faultSchema),
    handler: async ({ params, query, db }) => ({
      body: await listStationFaults({
        tenantId: params.tenant_id,
        stationId: params.station_id,
        page: query,
        open: query.open === "true",
        db,
      }),
    }),
  }),
];
