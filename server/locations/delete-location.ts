import { db as defaultDb, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";

export type DeleteLocationOptions = { tenantId: number; locationId: number; db?: DbTx };

/**
 * Deletes a location that no station stands at; with stations it is refused with 409
 * `location_has_stations` (move or delete them first). The location row is locked first, so a
 * station registered or moved here concurrently (its foreign key takes a share lock on this row)
 * either lands before the count, and refuses the delete, or waits and then finds no location.
 */
export async function deleteLocation({
  tenantId,
  locationId,
  db = defaultDb(),
}: DeleteLocationOptions) {
  const locked = await db.$queryRaw<{ id: number }[]>`
    SELECT id FROM locations WHERE id = ${locationId} AND tenant_id = ${tenantId} FOR UPDATE`;
  if (locked.length === 0) throw notFound("location");
  const stations = await db.station.count({ where: { locationId } });
  if (stations > 0) {
    throw new DomainError(
      "location_has_stations",
      `${stations === 1 ? "A station stands" : `${stations} stations stand`} at this location; move or delete ${stations === 1 ? "it" : "them"} first.`,
      { station_count: stations },
    );
  }
  await db.location.delete({ where: { id: locationId } });
  return { id: locationId, deleted: true as const };
}
