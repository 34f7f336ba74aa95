import { db as defaultDb, type DbTx } from "../db";
import { toPage, type Pagination } from "../lib/pagination";
import { presentLocation } from "./present-location";

export type ListLocationsOptions = {
  tenantId: number;
  page: Pagination;
  externalReference?: string;
  db?: DbTx;
};

export async function listLocations({
  tenantId,
  page,
  externalReference,
  db = defaultDb(),
}: ListLocationsOptions) {
  const rows = await db.location.findMany({
    where: {
      tenantId,
      id: { gt: page.after },
      ...(externalReference ? { externalReference } : {}),
    },
    orderBy: { id: "asc" },
    take: page.limit + 1,
  });
  return toPage(rows, page.limit, (r) => r.id, presentLocation);
}
