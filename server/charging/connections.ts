import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { appendEventsByTenant, type StationEvent, type TenantEvent } from "../events/append-event";
import { deadGatewayIds } from "./gateways";

export type ChargerContext = { stationId: number; tenantId: number; protocol: string };

export type ConnectionChange =
  | { kind: "connected"; station: { id: number; tenantId: number }; protocol: string; at: Date }
  | { kind: "disconnected"; station: { id: number; tenantId: number }; connectedAt: Date };

/**
 * Several connects and disconnects of one gateway in one transaction, applied in the order given:
 * what one costs (a commit, the tenant's event counter taken and held to commit) is paid once for
 * the lot, and the writes are set-based (one statement per run of distinct stations, the events
 * of each tenant in three), so a gateway records a burst (a reconnect storm, a network blip) many
 * times faster. Every station row is locked first, in id order, and the counters after them,
 * tenant by tenant (the lock order at `appendEvent`: a transaction appending events of several
 * stations locks them all first). A connect whose station no longer exists fails the whole call
 * (the recorder then records its changes one by one); a disconnect of a connection that is no
 * longer the station's (`connectedAt` differs, or another gateway holds it) changes nothing.
 */
export async function recordConnectionChanges(
  db: Db,
  gatewayId: string,
  changes: readonly ConnectionChange[],
) {
  const ids = [...new Set(changes.map((c) => c.station.id))].sort((a, b) => a - b);
  await inTransaction(
    db,
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM stations WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
      const events: TenantEvent[] = [];
      for (const run of runsOfDistinctStations(changes))
        for (const { change, event } of await applyRun(tx, gatewayId, run))
          events.push({ tenantId: change.station.tenantId, event });
      await appendEventsByTenant(tx, events);
    },
    { maxWait: 10_000, timeout: 30_000 },
  );
}

/** The changes cut, in order, into runs where each station appears at most once. */
function runsOfDistinctStations(changes: readonly ConnectionChange[]) {
  const runs: ConnectionChange[][] = [];
  let run: ConnectionChange[] = [];
  let seen = new Set<number>();
  for (const change of changes) {
    if (seen.has(change.station.id)) {
      runs.push(run);
      run = [];
      seen = new Set();
    }
    seen.add(change.station.id);
    run.push(change);
  }
  if (run.length) runs.push(run);
  return runs;
}

/** One run's writes (two statements at most); the changes that applied, in order, with their events. */
async function applyRun(tx: DbTx, gatewayId: string, run: readonly ConnectionChange[]) {
  const connects = run.filter((c) => c.kind === "connected");
  const disconnects = run.filter((c) => c.kind === "disconnected");
  const applied = new Map<ConnectionChange, StationEvent>();
  if (connects.length) {
    const rows = await tx.$queryRaw<{ id: number }[]>`
      UPDATE stations s
         SET gateway_id = ${gatewayId}, protocol = c.protocol, connected_at = c.at,
             last_seen_at = c.at, updated_at = now()
        FROM unnest(${connects.map((c) => c.station.id)}::int[],
                    ${connects.map((c) => c.protocol)}::text[],
                    ${connects.map((c) => c.at.toISOString())}::timestamptz[]) AS c(id, protocol, at)
       WHERE s.id = c.id
      RETURNING s.id`;
    if (rows.length !== connects.length)
      throw new Error("a connected station no longer exists; its connect cannot be recorded");
    for (const c of connects)
      applied.set(c, {
        type: "station.connected",
        resourceId: c.station.id,
        station: { id: c.station.id, occurredAt: null },
        data: { station_id: c.station.id, online: true, last_seen: c.at.toISOString() },
      });
  }
  if (disconnects.length) {
    // Only the connection that is still the station's on this gateway goes offline.
    const rows = await tx.$queryRaw<{ id: number; last_seen_at: Date | null }[]>`
      UPDATE stations s SET gateway_id = NULL, updated_at = now()
        FROM unnest(${disconnects.map((c) => c.station.id)}::int[],
                    ${disconnects.map((c) => c.connectedAt.toISOString())}::timestamptz[])
             AS d(id, connected_at)
       WHERE s.id = d.id AND s.gateway_id = ${gatewayId} AND s.connected_at = d.connected_at
      RETURNING s.id, s.last_seen_at`;
    const lastSeen = new Map(rows.map((r) => [r.id, r.last_seen_at]));
    for (const c of disconnects)
      if (lastSeen.has(c.station.id))
        applied.set(c, {
          type: "station.disconnected",
          resourceId: c.station.id,
          station: { id: c.station.id, occurredAt: null },
          data: {
            station_id: c.station.id,
            online: false,
            last_seen: lastSeen.get(c.station.id)?.toISOString() ?? null,
          },
        });
  }
  return run.flatMap((change) => {
    const event = applied.get(change);
    return event ? [{ change, event }] : [];
  });
}

/** Changes one transaction records at most: a gateway's recorder batches alike. */
export const CONNECTION_BATCH_SIZE = 100;

/**
 * Stations still held by these gateways go offline, with their events, in batches of one
 * gateway's stations of one tenant (`recordConnectionChanges`): a gateway's thousands of stations
 * cost tens of transactions, not thousands. Each change names the connection it ends, so a station
 * another gateway took meanwhile stays online. Every batch is tried; a failure is thrown after.
 */
export async function releaseStationsOf({ db, gatewayIds }: { db: Db; gatewayIds: string[] }) {
  const stations = await db.station.findMany({
    where: { gatewayId: { in: gatewayIds } },
    select: { id: true, tenantId: true, gatewayId: true, connectedAt: true },
    orderBy: { id: "asc" },
  });
  const groups = new Map<string, { gatewayId: string; changes: ConnectionChange[] }>();
  for (const { id, tenantId, gatewayId, connectedAt } of stations) {
    if (!gatewayId || !connectedAt) continue;
    const key = `${gatewayId}/${tenantId}`;
    const group = groups.get(key) ?? { gatewayId, changes: [] };
    group.changes.push({ kind: "disconnected", station: { id, tenantId }, connectedAt });
    groups.set(key, group);
  }
  const failures: unknown[] = [];
  for (const { gatewayId, changes } of groups.values())
    for (let i = 0; i < changes.length; i += CONNECTION_BATCH_SIZE)
      await recordConnectionChanges(
        db,
        gatewayId,
        changes.slice(i, i + CONNECTION_BATCH_SIZE),
      ).catch((error: unknown) => failures.push(error));
  if (failures.length) throw new AggregateError(failures, "recording disconnects failed");
  return stations.length;
}

/** Stations held by gateways that are not alive (`./gateways`) go offline, with their events. */
export async function releaseDeadGateways({ db }: { db: Db }) {
  return releaseStationsOf({ db, gatewayIds: await deadGatewayIds(db) });
}
