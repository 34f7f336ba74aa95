import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import { appendEvent } from "../events/append-event";
import { deadGatewayIds } from "./gateways";

export type ChargerContext = { stationId: number; tenantId: number; protocol: string };

/**
 * The station's socket opened on this gateway: it now owns the station (a reconnect to another
 * gateway moves ownership with it). `connectedAt` identifies this connection, so a late close of an
 * older one cannot mark the new one offline. Both record functions write the station row before
 * the event (the lock order at `appendEvent`) and run again after a deadlock or serialization
 * failure, so a connection change is never lost to a concurrent operation's outcome.
 */
export async function recordConnected({
  db,
  station,
  gatewayId,
  protocol,
}: {
  db: Db;
  station: { id: number; tenantId: number };
  gatewayId: string;
  protocol: string;
}) {
  const now = new Date();
  await inTransaction(db, async (tx) => {
    await tx.station.update({
      where: { id: station.id },
      data: { gatewayId, protocol, connectedAt: now, lastSeenAt: now },
    });
    await appendEvent({
      db: tx,
      tenantId: station.tenantId,
      type: "station.connected",
      resourceId: station.id,
      station: { id: station.id, occurredAt: null },
      data: { station_id: station.id, online: true, last_seen: now.toISOString() },
    });
  });
  return now;
}

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
  await inTransaction(db, async (tx) => {
    const updated = await tx.station.updateMany({
      where: { id: station.id, gatewayId, connectedAt },
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
