import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import { billInclude, type BillRow } from "./present-bill";

/**
 * Locks a tenant's bill for a change, in the lock order (server/db/README.md): a `csms` bill's
 * station row first, then the bill row. Every transaction that locks or writes a csms bill takes
 * its station first, so a charger's message (which holds the station, and may have appended
 * events before it reaches the bill) never waits in a cycle with a request that holds the bill,
 * nor with the payments service (bill → payment). A `simulated` bill is never touched by a
 * charger's message (matching, live pricing and the start's outcome are csms only), so it is
 * locked alone: simulated bills of one station do not queue behind its charger. Returns null
 * when the tenant has no such bill.
 */
export async function lockBill(
  tx: DbTx,
  { tenantId, billId }: { tenantId: number; billId: string },
): Promise<BillRow | null> {
  const found = await tx.bill.findFirst({
    where: { id: billId, tenantId },
    select: { stationId: true, source: true }, // never change: read before the lock
  });
  if (!found) return null;
  if (found.source === "csms") await lockStation(tx, found.stationId);
  return lockBillRow(tx, billId);
}

/** The bill row's lock, for a transaction that already holds a csms bill's station row. */
export async function lockBillRow(tx: DbTx, billId: string): Promise<BillRow | null> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM bills WHERE id = ${billId} FOR NO KEY UPDATE`;
  if (rows.length === 0) return null;
  return tx.bill.findUniqueOrThrow({ where: { id: billId }, include: billInclude });
}
