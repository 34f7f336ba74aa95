import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { appendEvent } from "../events/append-event";
import { deadGatewayIds } from "./gateways";

export type ChargerContext = { stationId: number; tenantId: number; protocol: string };

export type ConnectionChange =
  | { kind: "connected"; station: { id: number; tenantId: number }; protocol: string; at: Date }
  | { kind: "disconnected"; station: { id: number; tenantId: number }; connectedAt: Date };

/**
 * Several connects and disconnects of one gateway in one transaction, applied in the order given:
 * what one costs (a commit, the tenant's event counter taken and held to commit) is paid once for
 * the lot, so a gateway records a burst (a reconnect storm, a network blip) many times faster.
 * Every station row is locked first, in id order, and the counter after them (the lock order at
 * `appendEvent`: a transaction appending events of several stations locks them all first).
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
      for (const change of changes) await applyChange(tx, gatewayId, change);
    },
    { maxWait: 10_000, timeout: 30_000 },
  );
}

async function applyChange(tx: DbTx, gatewayId: string, change: ConnectionChange) {
  const { station } = change;
  if (change.kind === "connected") {
    const now = change.at;
    await tx.station.update({
      where: { id: station.id },
      data: { gatewayId, protocol: change.protocol, connectedAt: now, lastSeenAt: now },
    });
    await appendEvent({
      db: tx,
      tenantId: station.tenantId,
      type: "station.connected",
      resourceId: station.id,
      station: { id: station.id, occurredAt: null },
      data: { station_id: station.id, online: true, last_seen: now.toISOString() },
    });
    return;
  }
  const updated = await tx.station.updateMany({
    where: { id: station.id, gatewayId, connectedAt: change.connectedAt },
    data: { gatewayId: null },
  });
  if (updated.count === 0) return; // a newer connection owns the station, or it was deleted
  const row = await tx.station.findUnique({
    where: { id: station.id },
    select: { lastSeenAt: true },
  });
  await appendEvent({
    db: tx,
    tenantId: station.tenantId,
    type: "station.disconnected",
    resourceId: station.id,
    station: { id: station.id, occurredAt: null },
    data: {
      station_id: station.id,
      online: false,
      last_seen: row?.lastSeenAt?.toISOString() ?? null,
    },
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
