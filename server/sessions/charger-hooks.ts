import { asChargingToken } from "../bills/charging-token";
import { lockBillRow } from "../bills/lock-bill";
import type { TransactionHooks } from "../charger-reports/transaction-hooks";
import type { ChargerContext } from "../charging/connections";
import type { DbTx } from "../db";
import type { Transaction } from "../generated/prisma/client";
import { log } from "../log";
import type { ReconciliationReason } from "./session-schema";
import { syncSessionStatus } from "./sync-status";

/**
 * A transaction started or learned its token (hooked after `matchBill` in `transactionStarted`
 * and `transactionUpdated`, in the charger message's transaction, which holds the station row):
 * when the token is an external session's bill's, the session's status is published at once
 * (`charging` when its bill took the transaction). A transaction carrying the token that the
 * bill did not take is never guessed at: the session is flagged for reconciliation,
 * `token_elsewhere` (another connector of its station, before any match) or `second_transaction`
 * (the bill already has one).
 */
export async function sessionTransactionSeen(
  tx: DbTx,
  charger: ChargerContext,
  transaction: Transaction,
) {
  const token = transaction.idToken === null ? null : asChargingToken(transaction.idToken);
  if (!token) return;
  const bill = await tx.bill.findUnique({
    where: { tenantId_chargingToken: { tenantId: charger.tenantId, chargingToken: token } },
    select: {
      id: true,
      sessionId: true,
      stationId: true,
      transactionId: true,
      settlementOwner: true,
    },
  });
  if (!bill?.sessionId || bill.settlementOwner !== "external") return;
  if (bill.stationId !== charger.stationId) {
    // Another station's rows are outside this message's lock (its station row); the token is
    // only ever handed to the session's own station, so this is logged, not written.
    log.warn("an external session's token was used on another station", {
      session_id: bill.sessionId,
      transaction_id: transaction.id,
      station_id: charger.stationId,
    });
    return;
  }
  if (bill.transactionId !== transaction.id) {
    const flag: ReconciliationReason =
      bill.transactionId === null ? "token_elsewhere" : "second_transaction";
    await lockBillRow(tx, bill.id);
    await flagSession(tx, bill.sessionId, flag);
    log.warn("an external session's token started a transaction that is not the session's", {
      session_id: bill.sessionId,
      transaction_id: transaction.id,
      station_id: charger.stationId,
      reason: flag,
    });
  }
  await syncSessionStatus(tx, bill.sessionId);
}

/** The matched transaction of an external session's bill ended (hooked in `transactionEnded`). */
export async function sessionTransactionEnded(tx: DbTx, transaction: Transaction) {
  const bill = await tx.bill.findUnique({
    where: { transactionId: transaction.id },
    select: { sessionId: true },
  });
  if (bill?.sessionId) await syncSessionStatus(tx, bill.sessionId);
}

/**
 * What an external session does when a charger reports on a transaction: its status follows its
 * bill's. Registered after the bills' hooks (`server/domains.ts`): it reads what they decided.
 */
export const sessionTransactionHooks: TransactionHooks = {
  domain: "sessions",
  onTransactionStarted: sessionTransactionSeen,
  onTokenLearned: sessionTransactionSeen,
  onTransactionEnded: sessionTransactionEnded,
};

async function flagSession(tx: DbTx, sessionId: string, flag: ReconciliationReason) {
  await tx.$executeRaw`
    UPDATE charging_sessions
    SET reconciliation_flags = array_append(coalesce(reconciliation_flags, '{}'), ${flag}),
        updated_at = now()
    WHERE id = ${sessionId} AND NOT (${flag} = ANY(coalesce(reconciliation_flags, '{}')))`;
}
