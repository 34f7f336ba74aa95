import type { Db, DbTx } from "../db";

/** PostgreSQL's serialization_failure and deadlock_detected: the transaction may simply run again. */
const RETRYABLE_SQLSTATES = new Set(["40001", "40P01"]);

/**
 * True when the error says the whole transaction was rolled back because of a concurrent one
 * (a serialization failure or a deadlock), so running it again from the start is the remedy.
 *
 * Prisma 7 through @prisma/adapter-pg reports these as P2034 from model queries and as P2010 from
 * raw queries, both with the SQLSTATE in `meta.driverAdapterError.cause.originalCode`; a raw `pg`
 * error carries the SQLSTATE as `code`.
 */
export function isRetryableConflict(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const { code, meta, cause } = e as { code?: unknown; meta?: unknown; cause?: unknown };
    if (code === "P2034") return true;
    if (typeof code === "string" && RETRYABLE_SQLSTATES.has(code)) return true;
    const original = (meta as { driverAdapterError?: { cause?: { originalCode?: unknown } } })
      ?.driverAdapterError?.cause?.originalCode;
    if (typeof original === "string" && RETRYABLE_SQLSTATES.has(original)) return true;
    e = cause;
  }
  return false;
}

export type InTransactionOptions = {
  /** how long to wait for a pooled connection (Prisma's `maxWait`) */
  maxWait?: number;
  /** how long one attempt may run (Prisma's `timeout`) */
  timeout?: number;
  /** attempts in all, the first included */
  attempts?: number;
};

/**
 * Runs `fn` in one interactive transaction, and runs it again from the start (in a new
 * transaction) when PostgreSQL aborted it for a serialization failure or a deadlock, up to
 * `attempts` times with a short jittered pause. Every attempt starts clean: a failed one rolled
 * back all it wrote. So `fn` must do nothing outside the transaction that a second run would
 * repeat (NOTIFY is fine: it is delivered at commit).
 */
export async function inTransaction<T>(
  db: Db,
  fn: (tx: DbTx) => Promise<T>,
  { attempts = 4, ...options }: InTransactionOptions = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction(fn, options);
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      // 10-40 ms, then 20-80, 40-160: the other transaction usually needs only a moment.
      const base = 10 * 2 ** (attempt - 1);
      await new Promise((resolve) => setTimeout(resolve, base + Math.random() * 3 * base));
    }
  }
}
