import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";

/**
 * Runs `fn` in one transaction: the caller's, when it already is one (an idempotent route's record
 * transaction), else a new one. A route whose `Idempotency-Key` is optional hands its handler the
 * process's client when the request carries no key.
 */
export function atomically<T>(db: DbTx, fn: (tx: DbTx) => Promise<T>): Promise<T> {
  return "$transaction" in db ? inTransaction(db as Db, fn) : fn(db);
}
