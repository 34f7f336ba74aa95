import type { Db, DbTx } from "../db";
import { Prisma } from "../generated/prisma/client";

/**
 * Which `ocpp` processes (gateways) are alive: the one rule every caller uses, so the API's
 * `station_offline`, the operation sweeps and the release of a dead gateway's stations never
 * disagree about a gateway. A gateway is alive while it has not recorded its stop and its
 * heartbeat is younger than `GATEWAY_STALE_MS` by the database's clock (one clock for every
 * process, whatever their own clocks say).
 */

/** How often a gateway records that it is alive. */
export const GATEWAY_HEARTBEAT_MS = 5_000;
/** A gateway whose heartbeat is older than this (three missed beats) is treated as gone. */
export const GATEWAY_STALE_MS = 15_000;

/**
 * The job queue only this gateway's runner serves: jobs that need the sockets it holds. A gateway's
 * id is new at every start, so once it is dead no runner serves its queue again.
 */
export const GATEWAY_QUEUE_PREFIX = "gateway:";
export function gatewayQueue(gatewayId: string): string {
  return `${GATEWAY_QUEUE_PREFIX}${gatewayId}`;
}

/** The liveness rule as SQL, for the gateways row named `alias` (false when the row is missing). */
export function gatewayAlive(alias: string): Prisma.Sql {
  const g = Prisma.raw(alias);
  return Prisma.sql`(${g}.id IS NOT NULL AND ${g}.stopped_at IS NULL
    AND ${g}.heartbeat_at > now() - make_interval(secs => ${GATEWAY_STALE_MS / 1000}))`;
}

export async function liveGatewayIds(db: DbTx): Promise<Set<string>> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT g.id FROM gateways g WHERE ${gatewayAlive("g")}`;
  return new Set(rows.map((r) => r.id));
}

export async function deadGatewayIds(db: DbTx): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT g.id FROM gateways g WHERE NOT ${gatewayAlive("g")}`;
  return rows.map((r) => r.id);
}

export async function isGatewayAlive(db: DbTx, gatewayId: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT g.id FROM gateways g WHERE g.id = ${gatewayId} AND ${gatewayAlive("g")}`;
  return rows.length > 0;
}

/** The live gateway holding the station's socket, or null when the station is offline. */
export async function owningGateway(db: DbTx, stationId: number): Promise<string | null> {
  const rows = await db.$queryRaw<{ gateway_id: string }[]>`
    SELECT s.gateway_id FROM stations s JOIN gateways g ON g.id = s.gateway_id
     WHERE s.id = ${stationId} AND ${gatewayAlive("g")}`;
  return rows[0]?.gateway_id ?? null;
}

// Written with the database's clock, the one the rule reads.
export async function registerGateway(db: Db, id: string) {
  await db.$executeRaw`INSERT INTO gateways (id, started_at, heartbeat_at) VALUES (${id}, now(), now())`;
}

export async function recordGatewayHeartbeat(db: Db, id: string) {
  await db.$executeRaw`UPDATE gateways SET heartbeat_at = now() WHERE id = ${id}`;
}

/** The gateway stopped: it is dead from now on, whatever its last heartbeat. */
export async function recordGatewayStopped(db: Db, id: string) {
  await db.$executeRaw`UPDATE gateways SET stopped_at = now() WHERE id = ${id}`;
}
