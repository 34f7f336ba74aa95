import { db as defaultDb, type DbTx } from "../db";
import { loadStationDisplays } from "../displays/present-display";
import { toPage, type Pagination } from "../lib/pagination";
import { presentStation, stationInclude } from "./present-station";

export type ListStationsOptions = {
  tenantId: number;
  page: Pagination;
  /** case-insensitive substring of the name */
  name?: string;
  externalReference?: string;
  db?: DbTx;
};

export async function listStations({
  tenantId,
  page,
  name,
  externalReference,
  db = defaultDb(),
}: ListStationsOptions) {
  const rows = await db.station.findMany({
    where: {
      tenantId,
      id: { gt: page.after },
      ...(name ? { nameKey: { contains: name.toLowerCase() } } : {}),
      ...(externalReference ? { externalReference } : {}),
    },
    include: stationInclude,
    orderBy: { id: "asc" },
    take: page.limit + 1,
  });
  const displays = await loadStationDisplays(
    db,
    rows.map((r) => r.id),
  );
  return toPage(
    rows,
    page.limit,
    (r) => r.id,
    (r) => presentStation(r, displays.get(r.id)),
  );
}
