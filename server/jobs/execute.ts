import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { log } from "../log";
import { observeJob } from "./observe-job";
import type { ClaimedJob } from "./claim";
import {
  nextState,
  type JobContext,
  type JobDefinition,
  type Outcome,
  type Settled,
} from "./define-job";
import { holdsJob, recordSettled } from "./settle";
import { settleJobs, type CteNames, type SettleBatcher } from "./settle-batch";

export type ExecuteOptions = {
  db: Db;
  runnerId: string;
  now: () => Date;
  /** a runner's: `settleWith` of jobs finishing together share a statement */
  batcher?: SettleBatcher;
};

/**
 * Runs one claimed job and records its outcome, fenced by the claim's attempt. Never throws:
 * whatever goes wrong is the job's failure, or (when even recording fails) a lease that lapses
 * and lets a runner try again. Returns what the job became, or null when this attempt was fenced
 * out or could not record.
 */
export function executeJob(
  job: ClaimedJob,
  definition: JobDefinition,
  options: ExecuteOptions,
): Promise<Settled | null> {
  return observeJob(job, runJob(job, definition, options));
}

async function runJob(
  job: ClaimedJob,
  definition: JobDefinition,
  options: ExecuteOptions,
): Promise<Settled | null> {
  try {
    const parsed = definition.payload.safeParse(job.payload);
    if (!parsed.success)
      // enqueue parses payloads, so only a definition changed under queued jobs gets here
      return await settleAttempt(options, definition, job, {
        ok: false,
        error: `InvalidPayload: ${parsed.error.message}`,
        retry: false,
      });
    const onFailed = definition.onFailed
      ? (tx: DbTx, failure: { error: string; attempt: number }) =>
          definition.onFailed!(tx, parsed.data, failure)
      : undefined;
    if (job.attempt > definition.retry.maxAttempts)
      // The last attempt's runner died (its lease lapsed): no attempt is left to make.
      return await settleAttempt(
        options,
        definition,
        job,
        {
          ok: false,
          error: `LeaseLapsed: attempt ${job.attempt - 1} of ${definition.retry.maxAttempts} never recorded an outcome`,
          retry: false,
        },
        onFailed,
      );
    const ctx: JobContext = {
      jobId: job.id,
      attempt: job.attempt,
      runnerId: options.runnerId,
      db: options.db,
      now: options.now,
      holds: (tx) => holdsJob(tx, job.id, job.attempt),
      settle: async (tx, outcome) => {
        const next = nextState(definition.retry, job.attempt, outcome, options.now());
        if (!(await recordSettled(tx, job.id, job.attempt, next))) return null;
        return (settledByHandler = next);
      },
      settleWith: async (outcome, writes) => {
        const next = nextState(definition.retry, job.attempt, outcome, options.now());
        const request = {
          jobId: job.id,
          attempt: job.attempt,
          next,
          writes: (cte: CteNames) => writes(next, cte),
        };
        const settled = options.batcher
          ? await options.batcher.settle(request)
          : (await settleJobs(options.db, [request]))[0];
        if (!settled) return null;
        return (settledByHandler = next);
      },
    };
    let settledByHandler: Settled | null = null;
    let outcome: Outcome;
    try {
      await definition.handler(parsed.data, ctx);
      // A handler returns normally after settling only once that transaction committed.
      if (settledByHandler) return settledByHandler;
      outcome = { ok: true };
    } catch (error) {
      outcome = { ok: false, error: describe(error) };
      log.warn("job failed", {
        job: job.id,
        name: job.name,
        attempt: job.attempt,
        error: outcome.error,
      });
    }
    // A no-op when the handler settled this attempt itself: the row is no longer running it.
    return await settleAttempt(options, definition, job, outcome, onFailed);
  } catch (error) {
    log.error("recording a job's outcome failed", { job: job.id, name: job.name, error });
    return null;
  }
}

async function settleAttempt(
  options: ExecuteOptions,
  definition: JobDefinition,
  job: ClaimedJob,
  outcome: Outcome,
  onFailed?: (tx: DbTx, failure: { error: string; attempt: number }) => Promise<void>,
): Promise<Settled | null> {
  const next = nextState(definition.retry, job.attempt, outcome, options.now());
  if (next.status !== "failed" || !onFailed)
    return (await recordSettled(options.db, job.id, job.attempt, next)) ? next : null;
  // The job's failure and the domain's record of it commit together.
  return inTransaction(options.db, async (tx) => {
    if (!(await recordSettled(tx, job.id, job.attempt, next))) return null;
    await onFailed(tx, { error: next.error, attempt: job.attempt });
    return next;
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
