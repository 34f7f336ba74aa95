import type { DbTx } from "../db";

/**
 * Takes the station row's lock for the rest of the transaction: the first lock of any transaction
 * that writes a station or its rows (the lock order is at `appendEvent`). FOR NO KEY UPDATE is
 * what an UPDATE of the row takes, so inserts that only reference the station are not blocked.
 */
export async function lockStation(tx: DbTx, stationId: number): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: number }[]>`
    SELECT id FROM stations WHERE id = ${stationId} FOR NO KEY UPDATE`;
  return rows.length > 0;
}
