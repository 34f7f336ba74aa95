import { db as defaultDb, type DbTx } from "../db";
import { loadStationDisplays } from "../displays/present-display";
import type { Prisma } from "../generated/prisma/client";
import { toPage, type Pagination } from "../lib/pagination";
import { readyDomainBase } from "../ocpp-domains/ready-domain";
import { presentStation, stationInclude } from "./present-station";
import { loadChargerUrls } from "./charger-urls";

export type ListStationsOptions = {
  tenantId: number;
  page: Pagination;
  /** case-insensitive substring of the name */
  name?: string;
  externalReference?: string;
  /** the overview's states (server/overview/overview.ts counts by the same rule) */
  state?: StationState;
  /** the stations standing at one location */
  locationId?: number;
  db?: DbTx;
};

export type StationState = "online" | "offline" | "charging" | "faulted";

/** Which stations are in a state: the same rule as the overview's counts. */
export function stationStateWhere(state: StationState): Prisma.StationWhereInput {
  switch (state) {
    case "online":
      return { gatewayId: { not: null } };
    case "offline":
      return { gatewayId: null };
    case "charging":
      return { connectors: { some: { status: "Charging" } } };
    case "faulted":
      return {
        OR: [
          { connectors: { some: { status: "Faulted" } } },
          { faults: { some: { clearedAt: null } } },
        ],
      };
  }
}

export async function listStations({
  tenantId,
  page,
  name,
  externalReference,
  state,
  locationId,
  db = defaultDb(),
}: ListStationsOptions) {
  const rows = await db.station.findMany({
    where: {
      tenantId,
      id: { gt: page.after },
      ...(name ? { nameKey: { contains: name.toLowerCase() } } : {}),
      ...(externalReference ? { externalReference } : {}),
      ...(state ? stationStateWhere(state) : {}),
      ...(locationId ? { locationId } : {}),
    },
    include: stationInclude,
    orderBy: { id: "asc" },
    take: page.limit + 1,
  });
  const displays = await loadStationDisplays(
    db,
    rows.map((r) => r.id),
  );
  const chargerUrls = await loadChargerUrls(db, tenantId);
  const ocppBase = await readyDomainBase(db, tenantId);
  return toPage(
    rows,
    page.limit,
    (r) => r.id,
    (r) => presentStation(r, displays.get(r.id), chargerUrls, ocppBase),
  );
}
