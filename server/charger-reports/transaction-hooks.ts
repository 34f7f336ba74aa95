import type { ChargerContext } from "../charging/connections";
import type { DbTx } from "../db";
import { Prisma, type Transaction } from "../generated/prisma/client";

/**
 * What a domain does when a charger reports on a transaction (a bill takes the transaction
 * carrying its token, an external session publishes its status). Each hook runs in the charger
 * message's database transaction, which holds the station row, so what it records commits or
 * fails with the report; take only rows that come after the station in the lock order.
 */
export type TransactionHooks = {
  /** who adds them (the domain's folder), for messages */
  domain: string;
  /** A transaction was recorded (`transactionStarted`), with its token if the charger sent one. */
  onTransactionStarted?: (tx: DbTx, charger: ChargerContext, t: Transaction) => Promise<void>;
  /** A transaction learned its token after its start (2.x: it can start before authorization). */
  onTokenLearned?: (tx: DbTx, charger: ChargerContext, t: Transaction) => Promise<void>;
  /**
   * A transaction in progress reported readings (`transactionUpdated`); `readingAt` is the
   * charger's newest reading time. Not for a stop's own readings or an ended transaction, and not
   * in a batch of MeterValues: `recordMeterBatch` leaves a transaction whose bill is charging to
   * the per-message path.
   */
  onTransactionUpdated?: (
    tx: DbTx,
    charger: ChargerContext,
    t: Transaction,
    readingAt: Date,
  ) => Promise<void>;
  /**
   * A batch of MeterValues (`recordMeterBatch`) recorded power readings: each transaction's newest
   * one in the batch (kW, as normalized), of the transactions `followsPower` names. The batch
   * holds its stations' rows; read, or insert new rows (a job), only.
   */
  onPowerReadings?: (
    tx: DbTx,
    readings: readonly { transactionId: number; powerKw: string }[],
  ) => Promise<void>;
  /**
   * Whether `onPowerReadings` wants the readings of the transaction `transactionId` (an SQL
   * expression): an SQL boolean the batch reads with its other reads, under its stations' locks,
   * so a batch none of whose transactions is followed runs no statement for the hook. Without it,
   * every transaction's readings are passed.
   */
  followsPower?: (transactionId: Prisma.Sql) => Prisma.Sql;
  /** A transaction ended (`transactionEnded`), once: never again for the same transaction. */
  onTransactionEnded?: (tx: DbTx, t: Transaction) => Promise<void>;
};

let registered: readonly TransactionHooks[] | null = null;

/**
 * Sets every domain's hooks, in the order they run, for this process: `server/domains.ts` does,
 * and every process imports it before it takes a charger message (a second evaluation of it, as a
 * bundler may make, sets the same ones again).
 */
export function registerTransactionHooks(hooks: readonly TransactionHooks[]) {
  registered = hooks;
}

/** The registered hooks. Throws when none were: a report must never skip a domain silently. */
function hooks(): readonly TransactionHooks[] {
  if (!registered)
    throw new Error(
      "No charger-transaction hooks are registered: the process must import server/domains.ts.",
    );
  return registered;
}

export async function runTransactionStarted(tx: DbTx, charger: ChargerContext, t: Transaction) {
  for (const h of hooks()) await h.onTransactionStarted?.(tx, charger, t);
}

export async function runTokenLearned(tx: DbTx, charger: ChargerContext, t: Transaction) {
  for (const h of hooks()) await h.onTokenLearned?.(tx, charger, t);
}

export async function runTransactionUpdated(
  tx: DbTx,
  charger: ChargerContext,
  t: Transaction,
  readingAt: Date,
) {
  for (const h of hooks()) await h.onTransactionUpdated?.(tx, charger, t, readingAt);
}

/**
 * Whether any domain follows the power readings of the transaction `transactionId` (an SQL
 * expression; `followsPower`), as one SQL boolean for a batch's read.
 */
export function powerFollowed(transactionId: Prisma.Sql): Prisma.Sql {
  const followers = hooks()
    .filter((h) => h.onPowerReadings)
    .map((h) => h.followsPower?.(transactionId) ?? Prisma.sql`true`);
  return followers.length ? Prisma.sql`(${Prisma.join(followers, " OR ")})` : Prisma.sql`false`;
}

export async function runPowerReadings(
  tx: DbTx,
  readings: readonly { transactionId: number; powerKw: string }[],
) {
  if (!readings.length) return;
  for (const h of hooks()) await h.onPowerReadings?.(tx, readings);
}

export async function runTransactionEnded(tx: DbTx, t: Transaction) {
  for (const h of hooks()) await h.onTransactionEnded?.(tx, t);
}
