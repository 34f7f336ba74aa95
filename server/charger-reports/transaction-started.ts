import type { DbTx } from "../db";
import { Prisma, type Transaction } from "../generated/prisma/client";
import type { ChargerContext } from "../charging/connections";
import { findConnector, UnknownConnector, type ConnectorRef } from "../charging/find-connector";
import { refreshOccupiedStatus } from "./refresh-occupied-status";
import { runTransactionStarted } from "./transaction-hooks";

export type TransactionStart = {
  /** 2.x: the charger's transactionId. 1.6: none, the service assigns it (this row's ID). */
  reference?: string;
  connector: ConnectorRef | null;
  idToken: string | null;
  meterStartWh: number | null;
  /** null when the start was not reported (a 2.x transaction first seen in Updated or Ended) */
  startedAt: Date | null;
  /** when the charger reported it (the message's timestamp) */
  reportedAt: Date;
};

/**
 * A transaction started: the one entry point, for 1.6 StartTransaction and for whichever 2.x
 * TransactionEvent first names a transaction (`transactionUpdated`, `transactionEnded`). A
 * charger that reports the same start twice gets the same transaction: 2.x by its transactionId;
 * 1.6 by connector, token and start time. A named connector the station lacks throws
 * `UnknownConnector` (no transaction without its connector); only a 2.x transaction first seen
 * without `evse` has none.
 *
 * Hook point: what the domains do about a new transaction (`onTransactionStarted` of the
 * charger-transaction hooks, `./transaction-hooks.ts`: a bill whose token it carries takes it,
 * then an external session publishes its status) runs where it is created below, in the charger
 * message's transaction, so it commits or fails with the start.
 */
export async function transactionStarted(
  tx: DbTx,
  charger: ChargerContext,
  start: TransactionStart,
): Promise<Transaction> {
  const connector = start.connector
    ? await findConnector(tx, charger.stationId, start.connector)
    : null;
  if (start.connector && !connector) throw new UnknownConnector(start.connector);
  const transaction = await insertOrFind(tx, charger, start, connector?.id ?? null);
  if (!transaction.inserted) return transaction.row;
  await refreshOccupiedStatus(tx, charger, transaction.row.connectorId, start.reportedAt);
  await runTransactionStarted(tx, charger, transaction.row);
  return transaction.row;
}

/**
 * The columns of `transactions` in the model's names, for rows read by SQL. Listed by hand: a
 * field added to the model must be added here too, or its value comes back undefined
 * (`transaction-columns.test.ts` compares this list with the model's scalar fields).
 */
export const TRANSACTION_COLUMNS = Prisma.sql`
  id, tenant_id AS "tenantId", station_id AS "stationId", connector_id AS "connectorId",
  reference, id_token AS "idToken", started_at AS "startedAt", ended_at AS "endedAt",
  meter_start_wh AS "meterStartWh", meter_stop_wh AS "meterStopWh", energy_wh AS "energyWh",
  stop_reason AS "stopReason", last_sample_logged_at AS "lastSampleLoggedAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * The start's row, created in one statement unless the station has it already (`inserted`
 * false): 2.x by its reference (the unique key); 1.6 by connector, token and start time, and
 * its reference is the new row's ID, set in the same INSERT. One round trip where a lookup, an
 * INSERT and (1.6) an UPDATE of the reference took three; the station row is locked (the
 * message's transaction locks it first), so no other start of the station runs between the
 * check and the insert.
 */
async function insertOrFind(
  tx: DbTx,
  charger: ChargerContext,
  start: TransactionStart,
  connectorId: number | null,
): Promise<{ row: Transaction; inserted: boolean }> {
  const { stationId, tenantId } = charger;
  const meterStart = start.meterStartWh === null ? null : BigInt(start.meterStartWh);
  if (start.reference !== undefined) {
    const [row] = await tx.$queryRaw<Transaction[]>`
      INSERT INTO transactions
        (tenant_id, station_id, connector_id, reference, id_token, meter_start_wh, started_at,
         updated_at)
      VALUES (${tenantId}, ${stationId}, ${connectorId}, ${start.reference}, ${start.idToken},
              ${meterStart}, ${start.startedAt}, now())
      ON CONFLICT (station_id, reference) DO NOTHING
      RETURNING ${TRANSACTION_COLUMNS}`;
    if (row) return { row, inserted: true };
    const existing = await tx.transaction.findUniqueOrThrow({
      where: { stationId_reference: { stationId, reference: start.reference } },
    });
    return { row: existing, inserted: false };
  }
  // 1.6: the same start reported twice is the same transaction (connector, token, start time).
  // A start without a start time (none in 1.6, which requires one) is always new.
  const [row] = await tx.$queryRaw<(Transaction & { inserted: boolean })[]>`
    WITH existing AS (
      SELECT ${TRANSACTION_COLUMNS} FROM transactions
      WHERE ${start.startedAt !== null}
        AND station_id = ${stationId}
        AND connector_id IS NOT DISTINCT FROM ${connectorId}::int
        AND id_token IS NOT DISTINCT FROM ${start.idToken}::text
        AND started_at = ${start.startedAt}::timestamptz
      LIMIT 1
    ), next AS (
      SELECT nextval(pg_get_serial_sequence('transactions', 'id'))::int AS id
      WHERE NOT EXISTS (SELECT 1 FROM existing)
    ), inserted AS (
      INSERT INTO transactions
        (id, tenant_id, station_id, connector_id, reference, id_token, meter_start_wh, started_at,
         updated_at)
      SELECT id, ${tenantId}, ${stationId}, ${connectorId}, id::text, ${start.idToken},
             ${meterStart}, ${start.startedAt}, now()
      FROM next
      RETURNING ${TRANSACTION_COLUMNS}
    )
    SELECT *, true AS inserted FROM inserted
    UNION ALL
    SELECT *, false AS inserted FROM existing`;
  const { inserted, ...transaction } = row!;
  return { row: transaction, inserted };
}
