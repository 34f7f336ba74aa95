import type { DbTx } from "../db";
import { dummyPasswordHash, verifyPassword } from "../lib/passwords";

export type StationSession = { stationId: number; tenantId: number; name: string };

/**
 * A charger's connection credentials (HTTP Basic, OCPP security profile 1): the station with this
 * name (case-insensitive, as names are unique) whose password this is, or null. A name no station
 * has, and a station without a password, are checked against a dummy hash: every refusal costs
 * one password check, so timing does not tell which names exist. The caller owns the limits on
 * attempts and the turns checks take (ocpp/auth-limits.ts, ocpp/auth-queue.ts); `verify` can be a
 * faster or watched verifier.
 */
export async function authenticateStation({
  db,
  name,
  password,
  verify = verifyPassword,
}: {
  db: DbTx;
  name: string;
  password: Buffer;
  verify?: (password: Buffer, hash: string) => Promise<boolean>;
}): Promise<StationSession | null> {
  const station = await db.station.findUnique({ where: { nameKey: name.toLowerCase() } });
  // Checked whether or not the station exists: the check is what takes the time.
  const hash = station?.passwordHash ?? (await dummyPasswordHash());
  const right = await verify(password, hash);
  if (!station || !right) return null;
  return { stationId: station.id, tenantId: station.tenantId, name: station.name };
}
