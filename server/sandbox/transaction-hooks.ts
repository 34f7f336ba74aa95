import type { TransactionHooks } from "../charger-reports/transaction-hooks";
import type { DbTx } from "../db";
import type { Transaction } from "../generated/prisma/client";
import { enqueueDrive, syncSandboxSession } from "./session-status";

/**
 * A transaction started, learned its token, or ended: when it is a sandbox session's bill's
 * (the bills' hooks ran first and matched or ended the bill), the session takes the transaction
 * and its status is published at once, in the charger message's transaction, which holds the
 * station row and (from the bills' hooks) the bill: `charging` when it started, `stopping` when it
 * ended (which queues the settlement). One indexed read for any other transaction.
 */
async function sessionOfTransaction(tx: DbTx, transaction: Transaction, ended = false) {
  const [row] = await tx.$queryRaw<{ id: string; transaction_id: number | null }[]>`
    SELECT s.id, s.transaction_id FROM sandbox_sessions s JOIN bills b ON b.id = s.bill_id
     WHERE b.transaction_id = ${transaction.id}`;
  if (!row) return;
  if (row.transaction_id === null)
    await tx.sandboxSession.update({
      where: { id: row.id },
      data: { transactionId: transaction.id },
    });
  await syncSandboxSession(tx, row.id);
  // settled from the end, whenever the stop was asked (a job queued then may have given up)
  if (ended) await enqueueDrive(tx, row.id, "ended");
}

/** Registered after the bills' hooks (`server/domains.ts`): it reads what they decided. */
export const sandboxTransactionHooks: TransactionHooks = {
  domain: "sandbox",
  onTransactionStarted: (tx, _charger, t) => sessionOfTransaction(tx, t),
  onTokenLearned: (tx, _charger, t) => sessionOfTransaction(tx, t),
  onTransactionEnded: (tx, t) => sessionOfTransaction(tx, t, true),
};
