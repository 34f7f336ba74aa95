import { z } from "zod";
import type { DbTx } from "../db";
import { owningGateway } from "../charging/gateways";
import { toPage } from "../lib/pagination";
import { locationSchema } from "../locations/location-schema";
import { presentLocation } from "../locations/present-location";
import { connectionUrl } from "../stations/present-station";
import { SANDBOX_TARIFF_REFERENCE } from "./provision";

export const sandboxLocationSchema = locationSchema.extend({
  default_tariff_id: z.number().int().describe("what POST /v1/sessions prices by when not told"),
  stations: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      protocol: z.enum(["ocpp1.6", "ocpp2.0.1"]).describe("what its virtual charger speaks"),
      nominal_power_kw: z.number().describe("what an advance without elapsed_seconds is timed by"),
      online: z.boolean().describe("its virtual charger is connected now"),
      connection_url: z.string(),
      connectors: z.array(
        z.object({
          id: z.number().int(),
          evse_number: z.number().int(),
          connector_number: z.number().int(),
          status: z.string().nullable(),
          open_session_id: z
            .string()
            .nullable()
            .describe("the sandbox session holding it, or null when free"),
        }),
      ),
    }),
  ),
});

/**
 * `GET /v1/locations`: the workspace's sandbox locations (provisioned on first use), each with its
 * sandbox stations, their connectors and whether a session holds each, and the default tariff.
 * Paged as every list: `after` = the previous page's `next_cursor` (a location id).
 */
export async function listSandboxLocations(
  db: DbTx,
  tenantId: number,
  page: { after: number; limit: number },
) {
  const rows = await db.location.findMany({
    where: { tenantId, id: { gt: page.after } },
    orderBy: { id: "asc" },
    take: page.limit + 1,
    include: {
      stations: {
        orderBy: { id: "asc" },
        include: {
          connectors: {
            orderBy: { connectorNumber: "asc" },
            include: { evse: { select: { evseNumber: true } } },
          },
        },
      },
    },
  });
  const tariff = await db.tariff.findFirstOrThrow({
    where: { tenantId, externalReference: SANDBOX_TARIFF_REFERENCE },
    select: { id: true },
  });
  const stationIds = rows.flatMap((l) => l.stations.map((s) => s.id));
  const [chargers, open] = await Promise.all([
    db.sandboxCharger.findMany({ where: { stationId: { in: stationIds } } }),
    db.sandboxSession.findMany({
      where: { tenantId, openConnectorId: { not: null } },
      select: { id: true, openConnectorId: true },
    }),
  ]);
  const online = new Map<number, boolean>();
  for (const id of stationIds) online.set(id, (await owningGateway(db, id)) !== null);
  const result = toPage(
    rows,
    page.limit,
    (l) => l.id,
    (location) => ({
      ...presentLocation(location),
      default_tariff_id: tariff.id,
      stations: location.stations.flatMap((station) => {
        const charger = chargers.find((c) => c.stationId === station.id);
        if (!charger) return [];
        return [
          {
            id: station.id,
            name: station.name,
            protocol:
              charger.protocol === "ocpp1.6" ? ("ocpp1.6" as const) : ("ocpp2.0.1" as const),
            nominal_power_kw: charger.nominalPowerW / 1000,
            online: online.get(station.id) ?? false,
            connection_url: connectionUrl(station.name),
            connectors: station.connectors.map((c) => ({
              id: c.id,
              evse_number: c.evse.evseNumber,
              connector_number: c.connectorNumber,
              status: c.status,
              open_session_id: open.find((s) => s.openConnectorId === c.id)?.id ?? null,
            })),
          },
        ];
      }),
    }),
  );
  return result;
}
