import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { presentFault } from "../charging/present-fault";
import { toPage, type Pagination } from "../lib/pagination";

export type ListStationFaultsOptions = {
  tenantId: number;
  stationId: number;
  page: Pagination;
  /** open faults only */
  open: boolean;
  db?: DbTx;
};

/** A station's faults, newest first: `page.after` continues below the previous page's last ID. */
export async function listStationFaults({
  tenantId,
  stationId,
  page,
  open,
  db = defaultDb(),
}: ListStationFaultsOptions) {
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    select: { id: true },
  });
  if (!station) throw notFound("station");
  const rows = await db.fault.findMany({
    where: {
      stationId: station.id,
      ...(page.after ? { id: { lt: page.after } } : {}),
      ...(open ? { clearedAt: null } : {}),
    },
    orderBy: { id: "desc" },
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, (f) => f.id, presentFault);
}
