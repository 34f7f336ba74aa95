import type { DbTx } from "../db";
import type { ChargerContext } from "../charging/connections";
import { refreshOccupiedStatus } from "./refresh-occupied-status";
import { runTransactionEnded } from "./transaction-hooks";
import { transactionUpdated, type TransactionUpdate } from "./transaction-updated";

export type TransactionEnd = TransactionUpdate & {
  /** the register's final reading; without it (2.x), the start reading plus the energy metered */
  meterStopWh?: number;
  endedAt: Date;
  reason: string | null;
};

/**
 * A transaction ended: the one entry point, for 1.6 StopTransaction and 2.x TransactionEvent
 * `Ended` alike. The stop's own meter values are recorded first (`transactionUpdated`), then the
 * transaction is closed once; a second report of the same end changes nothing. Returns the
 * transaction, or null when the message names none the service knows.
 *
 * Hook point: what the domains do about a transaction's end (`onTransactionEnded` of the
 * charger-transaction hooks, `./transaction-hooks.ts`: its bill ends, then an external session
 * publishes `awaiting_bill`) runs where it is closed below, in the charger message's transaction,
 * so it commits or fails with the end and never runs twice for one transaction.
 */
export async function transactionEnded(tx: DbTx, charger: ChargerContext, end: TransactionEnd) {
  const transaction = await transactionUpdated(tx, charger, { ...end, ending: true });
  if (!transaction || transaction.endedAt) return transaction;
  const start = transaction.meterStartWh === null ? null : Number(transaction.meterStartWh);
  const meterStopWh = end.meterStopWh ?? (start === null ? null : start + transaction.energyWh);
  const ended = await tx.transaction.update({
    where: { id: transaction.id },
    data: {
      endedAt: end.endedAt,
      meterStopWh,
      stopReason: end.reason,
      ...(meterStopWh !== null && start !== null
        ? { energyWh: Math.max(0, meterStopWh - start) }
        : {}),
    },
  });
  await refreshOccupiedStatus(tx, charger, ended.connectorId, end.endedAt);
  await runTransactionEnded(tx, ended);
  return ended;
}
