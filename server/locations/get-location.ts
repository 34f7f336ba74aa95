import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { presentLocation } from "./present-location";

export type GetLocationOptions = { tenantId: number; locationId: number; db?: DbTx };

export async function getLocation({ tenantId, locationId, db = defaultDb() }: GetLocationOptions) {
  const row = await db.location.findFirst({ where: { id: locationId, tenantId } });
  if (!row) throw notFound("location");
  return presentLocation(row);
}
