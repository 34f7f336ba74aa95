import { z } from "zod";
import { presentFault } from "../../charging/record-status";
import { notFound } from "../../errors";
import { faultSchema } from "../../stations/station-schema";
import { pageSchema, paginationQuery, toPage } from "../../lib/pagination";
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
    handler: async ({ params, query, db }) => {
      const station = await db.station.findFirst({
        where: { id: params.station_id, tenantId: params.tenant_id },
        select: { id: true },
      });
      if (!station) throw notFound("station");
      const rows = await db.fault.findMany({
        where: {
          stationId: station.id,
          ...(query.after ? { id: { lt: query.after } } : {}),
          ...(query.open === "true" ? { clearedAt: null } : {}),
        },
        orderBy: { id: "desc" },
        take: query.limit + 1,
      });
      return { body: toPage(rows, query.limit, (f) => f.id, presentFault) };
    },
  }),
];
