import { db as defaultDb, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";

/**
 * A sandbox station is the service's own (server/sandbox/README.md): its virtual charger holds
 * its password, so it is neither deleted nor given another password. 409 `sandbox_station_managed`.
 */
export async function requireNotSandboxStation(db: DbTx, stationId: number, what: string) {
  const charger = await db.sandboxCharger.findUnique({
    where: { stationId },
    select: { stationId: true },
  });
  if (charger)
    throw new DomainError(
      "sandbox_station_managed",
      `A sandbox station is run by the service's virtual charger and cannot be ${what}; use it through POST /v1/sessions.`,
      { station_id: stationId },
    );
}

export type DeleteStationOptions = { tenantId: number; stationId: number; db?: DbTx };

/**
 * Deletes a station with its EVSEs and connectors, unless it has an active transaction (409
 * `transaction_active`) or any charging history, transactions or bills (409 `station_has_history`).
 */
export async function deleteStation({
  tenantId,
  stationId,
  db = defaultDb(),
}: DeleteStationOptions) {
  // Lock the row so a transaction cannot start between the checks and the delete.
  const locked = await db.$queryRaw<{ id: number }[]>`
    SELECT id FROM stations WHERE id = ${stationId} AND tenant_id = ${tenantId} FOR UPDATE`;
  if (locked.length === 0) throw notFound("station");
  await requireNotSandboxStation(db, stationId, "deleted");
  const active = await db.transaction.findFirst({
    where: { stationId, endedAt: null },
    select: { id: true },
  });
  if (active) {
    throw new DomainError(
      "transaction_active",
      "The station has an active transaction; stop it first.",
      {
        transaction_id: active.id,
      },
    );
  }
  const history = await db.transaction.count({ where: { stationId } });
  const bills = await db.bill.count({ where: { stationId } });
  if (history > 0 || bills > 0) {
    throw new DomainError(
      "station_has_history",
      "The station has charging history and cannot be deleted.",
      { transactions: history, bills },
    );
  }
  await db.station.delete({ where: { id: stationId } });
  // A connected station is disconnected by the gateway holding it (delivered at commit).
  await db.$executeRaw`SELECT pg_notify('station_control', ${String(stationId)})`;
  return { id: stationId, deleted: true as const };
}
