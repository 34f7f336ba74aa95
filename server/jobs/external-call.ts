import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import type { JobContext, Outcome, Settled } from "./define-job";

/*
 * The external-call pattern (server/jobs/README.md, "Calls to other systems"), for every call to a
 * charger, a payment provider, a DNS resolver or a webhook receiver:
 *
 * 1. The request's transaction writes an attempt row (the domain's record: a webhook delivery, a
 *    payment attempt) and enqueues the job that acts on it, keyed by the attempt's id
 *    (`enqueue(tx, def, { attempt_id }, { key: attemptId })`). Nothing is called inside it.
 * 2. The job makes the call with the attempt's id (or another id fixed in step 1) as the remote
 *    idempotency key, outside any transaction.
 * 3. `recordOutcome` writes the outcome to the attempt row and the job's next state in one
 *    transaction, fenced: a runner that lost its lease records nothing.
 * 4. An outcome that is not certain (a timeout, a reset connection, a 5xx) is a failure with
 *    `retry`: the job runs again after its backoff and asks again with the same key, never a new
 *    one, so the other side acts at most once.
 * 5. The API, after its commit, may wait briefly for the outcome (`waitFor` on the attempt row,
 *    `waitForJob`) or run the job itself at once (`runJobNow`, through the same claim).
 */

/**
 * Records an attempt's outcome: in one transaction, settles the job (`ctx.settle`) and, when this
 * attempt still held it, lets `write` record the outcome on the attempt row, told what the job
 * became (retry at `runAt`, succeeded, failed). Returns that, or null when fenced out (then
 * nothing was written). Retried whole on a serialization failure or deadlock.
 */
export async function recordOutcome(
  db: Db,
  ctx: JobContext,
  outcome: Outcome,
  write: (tx: DbTx, settled: Settled) => Promise<void>,
): Promise<Settled | null> {
  return inTransaction(db, async (tx) => {
    const settled = await ctx.settle(tx, outcome);
    if (settled) await write(tx, settled);
    return settled;
  });
}
