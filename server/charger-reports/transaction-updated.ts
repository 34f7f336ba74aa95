import type { DbTx } from "../db";
import type { ChargerContext } from "../charging/connections";
import { findTransaction, type TransactionRef } from "./find-transaction";
import { runTokenLearned, runTransactionUpdated } from "./transaction-hooks";
import type { Transaction } from "../generated/prisma/client";
import {
  planMeterValues,
  recordMeterValues,
  type MeterPlan,
  type OcppMeterValue,
} from "./record-meter";

export type TransactionUpdate = {
  transaction: TransactionRef;
  /** a token learned after the start (2.x: a transaction can start before authorization) */
  idToken?: string | null;
  meterValues: OcppMeterValue[];
  /** set by `transactionEnded`: these are the stop's own readings (no live cap: it is ending) */
  ending?: boolean;
};

/**
 * What a batch of MeterValues (`recordMeterBatch`) read for one message under its station's lock,
 * and where the message's writes go to be made with the rest of the batch.
 */
export type PrefetchedUpdate = {
  transaction: Transaction | null;
  /** the transaction has a bill being charged (then the batch leaves the message to this path) */
  billCharging: boolean;
  defer: (plan: MeterPlan) => void;
};

/** The charger's newest reading time in an update, if any can be read. */
function newestReading(meterValues: OcppMeterValue[]): Date | null {
  const times = meterValues.map((m) => Date.parse(m.timestamp)).filter(Number.isFinite);
  return times.length ? new Date(Math.max(...times)) : null;
}

/**
 * A charger reported on a transaction in progress: meter values (1.6 MeterValues, 2.x
 * TransactionEvent and MeterValues, and the final readings of a stop) and a token it learned. The
 * one entry point for both versions; the transaction is found by the version's reference. Returns
 * the transaction, or null when the message names none the service knows (nothing recorded).
 *
 * A batch of MeterValues (`recordMeterBatch`) passes what it `prefetched` under the stations'
 * locks and takes the writes (samples, totals, events) to make them for the whole batch at once;
 * the hooks below run alike.
 *
 * Hook points (the charger-transaction hooks, `./transaction-hooks.ts`): a token learned late
 * (`onTokenLearned`) may match a bill and move an external session; the readings of a transaction
 * in progress (`onTransactionUpdated`) price a bill's live and may stop it before its hold runs
 * out.
 */
export async function transactionUpdated(
  tx: DbTx,
  charger: ChargerContext,
  update: TransactionUpdate,
  prefetched?: PrefetchedUpdate,
) {
  let transaction = prefetched
    ? prefetched.transaction
    : await findTransaction(tx, charger, update.transaction);
  if (!transaction) return null;
  if (update.idToken && !transaction.idToken) {
    transaction = await tx.transaction.update({
      where: { id: transaction.id },
      data: { idToken: update.idToken },
    });
    await runTokenLearned(tx, charger, transaction);
  }
  if (update.meterValues.length && prefetched) {
    const plan = planMeterValues(transaction, update.meterValues);
    prefetched.defer(plan);
    transaction = { ...transaction, ...plan.after };
  } else if (update.meterValues.length)
    transaction = await recordMeterValues(tx, charger, transaction, update.meterValues);
  const readingAt = newestReading(update.meterValues);
  if (readingAt && !update.ending && !transaction.endedAt && (prefetched?.billCharging ?? true))
    await runTransactionUpdated(tx, charger, transaction, readingAt);
  return transaction;
}
