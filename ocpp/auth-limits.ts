import net from "node:net";
import type { Db } from "../server/db";
import { log } from "../server/log";

export type AuthLimits = {
  /** password attempts per station name per window (its own charger's attempt is given back) */
  failuresPerName: number;
  /** password attempts per client address per window (successful ones are given back) */
  failuresPerAddress: number;
  windowMs: number;
};

/**
 * A charger's name is its login: 10 wrong passwords a minute cannot guess a 16-character one,
 * and a charger that was given a new password reconnects well within that. Per address the limit
 * is higher because many chargers can share one (a depot's NAT, a carrier's CGNAT).
 */
export const DEFAULT_AUTH_LIMITS: AuthLimits = {
  failuresPerName: 10,
  failuresPerAddress: 100,
  windowMs: 60_000,
};

/** Where a proxy in front of the gateway can be: loopback, private, carrier NAT, link-local. */
const proxyRanges = new net.BlockList();
for (const [prefix, bits, type] of [
  ["127.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["::1", 128, "ipv6"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
] as const)
  proxyRanges.addSubnet(prefix, bits, type);

export function mayBeProxy(address: string): boolean {
  const ipv4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  const family = net.isIP(ipv4);
  return family !== 0 && proxyRanges.check(ipv4, family === 4 ? "ipv4" : "ipv6");
}

/**
 * The address a handshake counts against (and takes turns by). A peer in a loopback or private
 * range may be a proxy in front of the gateway (or a charger on a private network, which sends no
 * such header), so the last `X-Forwarded-For` entry, the one that proxy wrote, names the charger;
 * a public peer's header is ignored, since anyone on the internet could write it to dodge the
 * per-address limit. (Behind a proxy, the socket's address alone would put every charger in one
 * bucket, and one guesser would lock them all out.)
 */
export function chargerAddress(
  remoteAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
): string {
  const peer = remoteAddress ?? "unknown";
  if (!mayBeProxy(peer)) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "");
  const last = header
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .at(-1);
  return (last ?? peer).slice(0, 100);
}

/** The `rate_limit_windows` buckets one attempt counts against, with their limits. */
export function attemptBuckets(
  name: string,
  address: string,
  limits: AuthLimits,
): [{ bucket: string; limit: number }, { bucket: string; limit: number }] {
  return [
    { bucket: `ocpp-auth:name:${name.toLowerCase()}`, limit: limits.failuresPerName },
    { bucket: `ocpp-auth:address:${address}`, limit: limits.failuresPerAddress },
  ];
}

export type Reservation =
  { allowed: true; giveBack: () => Promise<void> } | { allowed: false; retryAfterSeconds: number };

type Row = { bucket: string; count: number; window_start: Date };

/**
 * Counts one password attempt against the station name and the client address before the
 * password is checked, in one upsert on the shared `rate_limit_windows` table, so the limits hold
 * across every gateway process and N concurrent guesses cannot all slip in before the first one
 * fails. A window starts at a bucket's first attempt and lasts `windowMs`. An attempt that turns
 * out right is given back (`giveBack`), and so is a refused one, so the counts are failures plus
 * attempts in flight.
 * Names and addresses are counted whether or not a station has the name, so a locked name says
 * nothing about whether it exists.
 */
export async function reserveAttempt({
  db,
  name,
  address,
  limits,
  now = new Date(),
}: {
  db: Db;
  name: string;
  address: string;
  limits: AuthLimits;
  now?: Date;
}): Promise<Reservation> {
  const [nameBucket, addressBucket] = attemptBuckets(name, address, limits).map((b) => b.bucket);
  const windowOpened = new Date(now.getTime() - limits.windowMs);
  const rows = await db.$queryRaw<Row[]>`
    INSERT INTO rate_limit_windows (api_key_id, window_start, count)
    VALUES (${nameBucket}, ${now}, 1), (${addressBucket}, ${now}, 1)
    ON CONFLICT (api_key_id) DO UPDATE SET
      count = CASE WHEN rate_limit_windows.window_start > ${windowOpened}
                   THEN rate_limit_windows.count + 1 ELSE 1 END,
      window_start = CASE WHEN rate_limit_windows.window_start > ${windowOpened}
                          THEN rate_limit_windows.window_start ELSE EXCLUDED.window_start END
    RETURNING api_key_id AS bucket, count, window_start`;
  // Only within the same window: a window that has since restarted never counted this attempt.
  // One row per statement, so this never holds one bucket's lock while waiting for the other.
  const giveBack = async () => {
    for (const row of rows)
      await db.$executeRaw`
        UPDATE rate_limit_windows SET count = count - 1
        WHERE api_key_id = ${row.bucket} AND window_start = ${row.window_start} AND count > 0`;
  };
  const limitOf = (bucket: string) =>
    bucket === nameBucket ? limits.failuresPerName : limits.failuresPerAddress;
  const over = rows.filter((row) => row.count > limitOf(row.bucket));
  if (over.length === 0) return { allowed: true, giveBack };
  // A refused attempt checks nothing, so it counts nothing: a charger retrying while its name is
  // locked neither extends the lock nor uses up its address's allowance. Not awaited: the refusal
  // is answered (and its turn freed) without waiting for the write.
  void giveBack().catch((error: unknown) =>
    log.warn("giving back an auth attempt failed", { error }),
  );
  const reopens = Math.max(...over.map((row) => row.window_start.getTime() + limits.windowMs));
  return {
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil((reopens - now.getTime()) / 1000)),
  };
}
