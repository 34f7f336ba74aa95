import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import { gatewayAlive } from "../charging/gateways";
import { completeOperation } from "./complete-operation";
import { stationOffline } from "./create-operation";

/**
 * How long an unclaimed operation may wait for its station's gateway before it is refused: the
 * NOTIFY that wakes the gateway normally gets it claimed within milliseconds.
 */
export const UNCLAIMED_GRACE_MS = 2_000;

/**
 * Rejects with `station_offline` the `dispatching` operations that no gateway claimed and none
 * can send any more: their station is held by no live gateway (it disconnected, or its gateway
 * died, after the operation was written). Nothing was sent, so `rejected` is certain. Returns the
 * number rejected.
 */
export async function rejectUnreachableOperations({ db, limit = 500 }: { db: Db; limit?: number }) {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT o.id FROM operations o
      LEFT JOIN stations s ON s.id = o.station_id
      LEFT JOIN gateways g ON g.id = s.gateway_id
     WHERE o.status = 'dispatching' AND o.claimed_by IS NULL
       AND o.created_at <= now() - make_interval(secs => ${UNCLAIMED_GRACE_MS / 1000})
       AND NOT ${gatewayAlive("g")}
     ORDER BY o.created_at
     LIMIT ${limit}`;
  let rejected = 0;
  for (const { id } of rows) {
    const done = await inTransaction(db, (tx) =>
      completeOperation(tx, id, { status: "rejected", result: { error: stationOffline() } }),
    );
    if (done) rejected++;
  }
  return rejected;
}

/**
 * Unclaimed `dispatching` operations of the given stations (a gateway's own), in the order they
 * were written (`seq`, which orders those one transaction wrote too, as `created_at` cannot).
 */
export async function unclaimedOperationIds({
  db,
  stationIds,
  limit = 500,
}: {
  db: Db;
  stationIds: number[];
  limit?: number;
}) {
  if (!stationIds.length) return [];
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM operations
     WHERE status = 'dispatching' AND claimed_by IS NULL AND station_id = ANY(${stationIds}::int[])
     ORDER BY seq
     LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/** Which of the given stations (a gateway's own) have unclaimed `dispatching` operations. */
export async function stationsWithUnclaimedOperations({
  db,
  stationIds,
}: {
  db: Db;
  stationIds: number[];
}): Promise<number[]> {
  if (!stationIds.length) return [];
  const rows = await db.$queryRaw<{ station_id: number }[]>`
    SELECT DISTINCT station_id FROM operations
     WHERE status = 'dispatching' AND claimed_by IS NULL AND station_id = ANY(${stationIds}::int[])`;
  return rows.map((r) => r.station_id);
}
