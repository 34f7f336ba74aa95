import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { appendEvent } from "../events/append-event";
import { deadGatewayIds } from "./gateways";

export type ChargerContext = { stationId: number; tenantId: number; protocol: string };

/**
 * The station's socket on this gateway closed (one change alone; a gateway records its bursts
 * through `recordConnectionChanges`). `connectedAt` identifies the connection, so a late close of
 * an older one cannot mark a newer one offline. Written station row first, then the event (the
 * lock order at `appendEvent`), and run again after a deadlock or serialization failure, so a
 * connection change is never lost to a concurrent operation's outcome.
 */
export async function recordDisconnected({
  db,
  station,
  gatewayId,
  connectedAt,
}: {
  db: Db;
  station: { id: number; tenantId: number };
  gatewayId: string;
  connectedAt: Date;
}) {
  await inTransaction(db, (tx) =>
    applyChange(tx, gatewayId, { kind: "disconnected", station, connectedAt }),
  );
}

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

/** Stations held by gateways that are not alive (`./gateways`) go offline, with their events. */
export async function releaseDeadGateways({ db }: { db: Db }) {
  const stations = await db.station.findMany({
    where: { gatewayId: { in: await deadGatewayIds(db) } },
    select: { id: true, tenantId: true, gatewayId: true, connectedAt: true },
  });
  for (const s of stations) {
    if (s.gatewayId && s.connectedAt) {
      await recordDisconnected({
        db,
        station: s,
        gatewayId: s.gatewayId,
        connectedAt: s.connectedAt,
      });
    }
  }
  return stations.length;
}
