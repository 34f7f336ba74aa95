import type { DbTx } from "../db";
import type { Transaction } from "../generated/prisma/client";
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
  const existing = start.reference
    ? await tx.transaction.findUnique({
        where: {
          stationId_reference: { stationId: charger.stationId, reference: start.reference },
        },
      })
    : start.startedAt
      ? await tx.transaction.findFirst({
          where: {
            stationId: charger.stationId,
            connectorId: connector?.id ?? null,
            idToken: start.idToken,
            startedAt: start.startedAt,
          },
        })
      : null;
  if (existing) return existing;
  const created = await tx.transaction.create({
    data: {
      tenantId: charger.tenantId,
      stationId: charger.stationId,
      connectorId: connector?.id ?? null,
      // 1.6: the service assigns the charger's transactionId; it is this row's ID (set below).
      reference: start.reference ?? `pending-${crypto.randomUUID()}`,
      idToken: start.idToken,
      meterStartWh: start.meterStartWh,
      startedAt: start.startedAt,
    },
  });
  const transaction = start.reference
    ? created
    : await tx.transaction.update({
        where: { id: created.id },
        data: { reference: String(created.id) },
      });
  await refreshOccupiedStatus(tx, charger, transaction.connectorId, start.reportedAt);
  await runTransactionStarted(tx, charger, transaction);
  return transaction;
}
