import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { recordCompletedOperation } from "../operations/record-completed-operation";
import { locationNotFound } from "./register-station";

export type MoveStationOptions = {
  tenantId: number;
  stationId: number;
  locationId: number;
  apiKeyId: string | null;
  db?: DbTx;
};

/** Moves a station to another location of the same tenant; answered as a completed operation. */
export async function moveStation({
  tenantId,
  stationId,
  locationId,
  apiKeyId,
  db = defaultDb(),
}: MoveStationOptions) {
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    select: { id: true, locationId: true },
  });
  if (!station) throw notFound("station");
  const location = await db.location.findFirst({
    where: { id: locationId, tenantId },
    select: { id: true },
  });
  if (!location) throw locationNotFound(locationId);
  await db.station.update({ where: { id: stationId }, data: { locationId } });
  return recordCompletedOperation({
    db,
    tenantId,
    apiKeyId,
    stationId,
    scope: "station.update",
    action: "move",
    request: { location_id: locationId },
    status: "succeeded",
    result: { previous_location_id: station.locationId, location_id: locationId },
  });
}
