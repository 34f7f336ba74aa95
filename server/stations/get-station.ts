import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { presentStation, stationInclude } from "./present-station";

export type GetStationOptions = { tenantId: number; stationId: number; db?: DbTx };

export async function findStationRow({ tenantId, stationId, db = defaultDb() }: GetStationOptions) {
  const row = await db.station.findFirst({
    where: { id: stationId, tenantId },
    include: stationInclude,
  });
  if (!row) throw notFound("station");
  return row;
}

export async function getStation(options: GetStationOptions) {
  return presentStation(await findStationRow(options));
}
