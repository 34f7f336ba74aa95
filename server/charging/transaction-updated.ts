import type { DbTx } from "../db";
import type { ChargerContext } from "./connections";
import { findTransaction, type TransactionRef } from "./find-transaction";
import { recordMeterValues, type OcppMeterValue } from "./record-meter";

export type TransactionUpdate = {
  transaction: TransactionRef;
  /** a token learned after the start (2.x: a transaction can start before authorization) */
  idToken?: string | null;
  meterValues: OcppMeterValue[];
};

/**
 * A charger reported on a transaction in progress: meter values (1.6 MeterValues, 2.x
 * TransactionEvent and MeterValues, and the final readings of a stop) and a token it learned. The
 * one entry point for both versions; the transaction is found by the version's reference. Returns
 * the transaction, or null when the message names none the service knows (nothing recorded).
 */
export async function transactionUpdated(
  tx: DbTx,
  charger: ChargerContext,
  update: TransactionUpdate,
) {
  let transaction = await findTransaction(tx, charger, update.transaction);
  if (!transaction) return null;
  if (update.idToken && !transaction.idToken) {
    transaction = await tx.transaction.update({
      where: { id: transaction.id },
      data: { idToken: update.idToken },
    });
  }
  if (update.meterValues.length)
    transaction = await recordMeterValues(tx, charger, transaction, update.meterValues);
  return transaction;
}
