import { queryRows, type DbTx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { dummyPasswordHash, verifyPassword } from "../lib/passwords";
import { stationVerifier, verifierMatches } from "../lib/password-verifier";

export type StationSession = { stationId: number; tenantId: number; name: string };

/**
 * A charger's connection credentials (HTTP Basic, OCPP security profile 1): the station with this
 * name (case-insensitive, as names are unique) whose password this is, or null. A name no station
 * has, and a station without a password, are checked against a dummy hash: every refusal costs
 * one password check, so timing does not tell which names exist. The caller owns the limits on
 * attempts and the turns checks take (ocpp/auth-limits.ts, ocpp/auth-queue.ts), and holds the
 * refusals those make without a check as long as a checked one (ocpp/refusal-pace.ts); `verify`
 * can be a watched verifier. With a `verifierKey`, a right password leaves the station's keyed verifier
 * (server/lib/password-verifier.ts) for `quickAuthenticateStation`, bound to the hash it matched:
 * written only while that hash is still the station's.
 */
export async function authenticateStation({
  db,
  name,
  password,
  verify = verifyPassword,
  verifierKey = null,
}: {
  db: DbTx;
  name: string;
  password: Buffer;
  verify?: (password: Buffer, hash: string) => Promise<boolean>;
  verifierKey?: Buffer | null;
}): Promise<StationSession | null> {
  const station = await db.station.findUnique({ where: { nameKey: name.toLowerCase() } });
  // Checked whether or not the station exists: the check is what takes the time.
  const hash = station?.passwordHash ?? (await dummyPasswordHash());
  const right = await verify(password, hash);
  if (!station || !right) return null;
  if (verifierKey && station.passwordHash) {
    const verifier = stationVerifier(verifierKey, station.id, station.passwordHash, password);
    if (verifier !== station.passwordVerifier)
      await db.station.updateMany({
        where: { id: station.id, passwordHash: station.passwordHash },
        data: { passwordVerifier: verifier },
      });
  }
  return { stationId: station.id, tenantId: station.tenantId, name: station.name };
}

export type QuickCheck =
  | { outcome: "accepted"; session: StationSession }
  /** a limit on attempts for this name or address is reached: refused even for the right password */
  | { outcome: "limited"; retryAfterSeconds: number }
  /** no verifier for this password and the station's current hash: a full check decides */
  | { outcome: "unsure" };

/**
 * A reconnecting charger's check without scrypt: one query reads the station and whether the
 * attempt limits (`ocpp/auth-limits.ts`, the same buckets and counts as `reserveAttempt`) are
 * reached, and the password is accepted when it matches the station's keyed verifier for its
 * current hash. Nothing is written: a right password's attempt would be given back anyway. A
 * wrong password, an unknown name or a missing verifier is `unsure` and takes the full check,
 * which counts the attempt and costs a scrypt like any refusal.
 */
export async function quickAuthenticateStation({
  db,
  name,
  password,
  buckets,
  windowMs,
  verifierKey,
  now = new Date(),
}: {
  db: DbTx;
  name: string;
  password: Buffer;
  /** the name's and the address's buckets (`attemptBuckets`) */
  buckets: [{ bucket: string; limit: number }, { bucket: string; limit: number }];
  windowMs: number;
  verifierKey: Buffer;
  now?: Date;
}): Promise<QuickCheck> {
  const windowOpened = new Date(now.getTime() - windowMs);
  const [byName, byAddress] = buckets;
  // Past Prisma's query engine (`queryRows`), prepared once per connection: every handshake runs it.
  const [row] = await queryRows<{
    id: number | null;
    tenantId: number;
    name: string;
    passwordHash: string | null;
    passwordVerifier: string | null;
    lockedSince: Date | null;
  }>(
    db,
    Prisma.sql`/* prepared */
    SELECT s.id, s.tenant_id AS "tenantId", s.name, s.password_hash AS "passwordHash",
           s.password_verifier AS "passwordVerifier",
           (SELECT max(r.window_start) FROM rate_limit_windows r
             WHERE r.window_start > ${windowOpened}
               AND ((r.api_key_id = ${byName.bucket} AND r.count >= ${byName.limit})
                 OR (r.api_key_id = ${byAddress.bucket} AND r.count >= ${byAddress.limit})))
             AS "lockedSince"
    FROM (SELECT 1) AS one LEFT JOIN stations s ON s.name_key = ${name.toLowerCase()}`,
  );
  if (!row?.id || !row.passwordHash || !row.passwordVerifier) return { outcome: "unsure" };
  if (!verifierMatches(verifierKey, row.passwordVerifier, row.id, row.passwordHash, password))
    return { outcome: "unsure" };
  if (row.lockedSince) {
    const reopens = row.lockedSince.getTime() + windowMs;
    return {
      outcome: "limited",
      retryAfterSeconds: Math.max(1, Math.ceil((reopens - now.getTime()) / 1000)),
    };
  }
  return {
    outcome: "accepted",
    session: { stationId: row.id, tenantId: row.tenantId, name: row.name },
  };
}
