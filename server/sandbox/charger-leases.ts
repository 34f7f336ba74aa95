import { gatewayAlive } from "../charging/gateways";
import { queryRows, type DbTx } from "../db";
import { Prisma } from "../generated/prisma/client";

/**
 * Which gateway hosts which virtual charger (ocpp/sandbox/README.md, Leases): a lease on the
 * station's `sandbox_chargers` row, `host_gateway_id` until `lease_until`. A host claims the rows
 * of wanted chargers no live host holds (`FOR UPDATE SKIP LOCKED`, so concurrent hosts never both
 * take one), renews its own with its heartbeat, and gives back those no longer wanted, or all of
 * them when its gateway stops. A gateway that dies stops renewing: once its leases lapse (or its
 * heartbeat is stale, the gateways' one liveness rule), another host adopts them.
 */

/**
 * The row `alias` is a wanted charger (the contract in ocpp/sandbox/README.md): its station has a
 * sandbox session that is open (`starting`, `charging` or `stopping`: `open_connector_id` set), or
 * its last one left those less than `idleMs` ago (`idle_since`, set by the API side).
 */
export function chargerWanted(alias: string, idleMs: number): Prisma.Sql {
  const c = Prisma.raw(alias);
  return Prisma.sql`(EXISTS (SELECT 1 FROM connectors k
                               JOIN sandbox_sessions s ON s.open_connector_id = k.id
                              WHERE k.station_id = ${c}.station_id)
          OR ${c}.idle_since > now() - make_interval(secs => ${idleMs / 1000}))`;
}

const leaseInterval = (leaseMs: number) => Prisma.sql`make_interval(secs => ${leaseMs / 1000})`;

export type LeaseOptions = { gatewayId: string; leaseMs: number; idleMs: number };

/**
 * Claims up to `limit` wanted chargers that no live host holds (never held, given back, lapsed,
 * or held by a gateway the liveness rule says is gone), or only those of `stationIds`. Returns
 * the stations now this gateway's.
 */
export async function claimSandboxChargers(
  db: DbTx,
  {
    gatewayId,
    leaseMs,
    idleMs,
    stationIds,
    limit = 100,
  }: LeaseOptions & {
    stationIds?: number[];
    limit?: number;
  },
): Promise<number[]> {
  const only = stationIds ? Prisma.sql`AND x.station_id = ANY(${stationIds}::int[])` : Prisma.empty;
  const rows = await queryRows<{ station_id: number }>(
    db,
    Prisma.sql`
      UPDATE sandbox_chargers c
         SET host_gateway_id = ${gatewayId}, lease_until = now() + ${leaseInterval(leaseMs)}
       WHERE c.station_id IN (
         SELECT x.station_id FROM sandbox_chargers x
           LEFT JOIN gateways g ON g.id = x.host_gateway_id
          WHERE (x.host_gateway_id IS NULL OR x.lease_until IS NULL OR x.lease_until < now()
                 OR NOT ${gatewayAlive("g")})
            AND ${chargerWanted("x", idleMs)} ${only}
          ORDER BY x.station_id
          LIMIT ${limit}
            FOR UPDATE OF x SKIP LOCKED)
      RETURNING c.station_id`,
  );
  return rows.map((r) => r.station_id);
}

/**
 * Renews every lease this gateway holds, and says which of its chargers are still wanted. A
 * station missing from the answer is no longer this gateway's (another adopted it).
 */
export async function renewSandboxLeases(
  db: DbTx,
  { gatewayId, leaseMs, idleMs }: LeaseOptions,
): Promise<{ stationId: number; wanted: boolean }[]> {
  const rows = await queryRows<{ station_id: number; wanted: boolean }>(
    db,
    Prisma.sql`
      UPDATE sandbox_chargers c SET lease_until = now() + ${leaseInterval(leaseMs)}
       WHERE c.host_gateway_id = ${gatewayId}
      RETURNING c.station_id, ${chargerWanted("c", idleMs)} AS wanted`,
  );
  return rows.map((r) => ({ stationId: r.station_id, wanted: r.wanted }));
}

/**
 * Gives back the leases of these chargers that are still not wanted (a session that opened
 * meanwhile keeps its charger here). Returns the stations given back.
 */
export async function releaseUnwantedSandboxChargers(
  db: DbTx,
  { gatewayId, idleMs, stationIds }: Omit<LeaseOptions, "leaseMs"> & { stationIds: number[] },
): Promise<number[]> {
  if (!stationIds.length) return [];
  const rows = await queryRows<{ station_id: number }>(
    db,
    Prisma.sql`
      UPDATE sandbox_chargers c SET host_gateway_id = NULL, lease_until = NULL
       WHERE c.host_gateway_id = ${gatewayId} AND c.station_id = ANY(${stationIds}::int[])
         AND NOT ${chargerWanted("c", idleMs)}
      RETURNING c.station_id`,
  );
  return rows.map((r) => r.station_id);
}

/**
 * A stopping gateway gives back every lease it holds, and tells the other hosts at once
 * (`NOTIFY sandbox_released`, delivered at commit) so the wanted chargers are adopted without
 * waiting for a lease to lapse.
 */
export async function releaseAllSandboxLeases(
  db: DbTx,
  { gatewayId, idleMs }: Omit<LeaseOptions, "leaseMs">,
): Promise<number[]> {
  const rows = await queryRows<{ station_id: number }>(
    db,
    Prisma.sql`
      WITH released AS (
        UPDATE sandbox_chargers c SET host_gateway_id = NULL, lease_until = NULL
         WHERE c.host_gateway_id = ${gatewayId}
        RETURNING c.station_id, ${chargerWanted("c", idleMs)} AS wanted)
      SELECT station_id, CASE WHEN wanted
                              THEN pg_notify('sandbox_released', station_id::text) END AS notified
        FROM released`,
  );
  return rows.map((r) => r.station_id);
}
