import { z } from "zod";
import type { Db, DbTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import type { CteNames } from "./settle-batch";

/** How a failed run is tried again. `attempt` counts claims, the failed one included (1 = first). */
export type RetryPolicy = {
  /** claims in all, the first included; a run that fails on the last one ends the job `failed` */
  maxAttempts: number;
  /** the wait after the failed claim number `attempt` before the next one may start */
  backoff: (attempt: number) => number;
};

/**
 * Slots of `everyMs` counted from the Unix epoch (every 10 minutes means :00, :10, :20 …), so
 * every process computes the same slots. One job per slot, whatever the number of runners.
 */
export type Schedule = { everyMs: number };

/** The outcome a run records: success, or a failure that is retried unless `retry` is false. */
export type Outcome = { ok: true } | { ok: false; error: string; retry?: boolean };

/** What the job became once an attempt's outcome was recorded. */
export type Settled =
  | { status: "succeeded"; finishedAt: Date }
  | { status: "queued"; runAt: Date; error: string }
  | { status: "failed"; finishedAt: Date; error: string };

export type JobContext = {
  jobId: string;
  /** this claim's number, the fencing token: only the current attempt may record an outcome */
  attempt: number;
  runnerId: string;
  /** the runner's database client */
  db: Db;
  /** the runner's clock (tests move it): what is due, and when a retry falls, follow it */
  now: () => Date;
  /**
   * Locks the job row in `tx` and tells whether this attempt still holds the job. While `tx` is
   * open no other runner can claim it, so writes made in `tx` after `true` are this attempt's
   * alone; after `false` (the lease lapsed and another runner took it, or it was settled) write
   * nothing.
   */
  holds: (tx: DbTx) => Promise<boolean>;
  /**
   * Records this attempt's outcome in `tx`, fenced like `holds`: the job succeeds, is queued
   * again after the definition's backoff, or fails. Returns what it became, or null when this
   * attempt no longer holds the job (then write nothing). Lets a handler commit its own record of
   * an external call and the job's next state together; the kernel then records nothing more, so
   * a handler that settled returns normally only once `tx` committed (if it rolled back, throw).
   */
  settle: (tx: DbTx, outcome: Outcome) => Promise<Settled | null>;
  /**
   * `settle` and the handler's own writes in one statement, for hot paths: `writes(next, cte)`
   * are data-modifying CTEs (`${cte("name")} AS (INSERT|UPDATE … )`, comma-separated) that see
   * the fenced job update as `${cte("job")}` and must write nothing unless it has a row. Every
   * CTE name goes through `cte`, because a runner settles the jobs that finish together in one
   * statement (server/jobs/settle-batch.ts). Returns what the job became, or null when fenced out
   * (then the writes did nothing).
   */
  settleWith: (
    outcome: Outcome,
    writes: (next: Settled, cte: CteNames) => Prisma.Sql,
  ) => Promise<Settled | null>;
};

// Methods, not function properties: a list of definitions of different payloads is a
// `JobDefinition[]` (method parameters are compared bivariantly).
export type JobDefinition<P = unknown> = {
  /** stable: stored in `jobs.name`; renaming strands queued jobs */
  id: string;
  payload: z.ZodType<P>;
  /**
   * Runs the job. Returning records success and throwing a failure (retried per `retry`), unless
   * the handler already settled this attempt through `ctx.settle`. Runs at least once per
   * attempt that is claimed, and may run again after a crash: effects outside the database must
   * be idempotent, keyed by something stable across attempts (the job's payload).
   */
  handler(payload: P, ctx: JobContext): Promise<void>;
  retry: RetryPolicy;
  schedule?: Schedule;
  /** how long a claim holds the job; longer than any run, so it lapses only when a runner died */
  leaseMs: number;
  queue: string;
  /**
   * Runs in the transaction that ends the job `failed` when the kernel ends it: the handler
   * threw on its last attempt, or the runner of the last attempt died. Not when the handler
   * settled the failure itself. For the domain record to say so (e.g. a delivery row).
   */
  onFailed?(tx: DbTx, payload: P, failure: { error: string; attempt: number }): Promise<void>;
};

export const DEFAULT_LEASE_MS = 60_000;
export const DEFAULT_QUEUE = "default";

/** Longer than recording a run's outcome takes (a transaction, retried on a conflict). */
export const LEASE_RECORDING_MARGIN_MS = 10_000;

/**
 * The lease of a job whose run makes up to `calls` external calls one after another, each ending
 * within `callBudgetMs` (its timeout, and whatever its client adds), and then records what they
 * said: it lapses only when the runner died, never while a slow call is still going, so no second
 * runner asks the same question at the same time.
 */
export function leaseForCalls(calls: number, callBudgetMs: number): number {
  return calls * callBudgetMs + LEASE_RECORDING_MARGIN_MS;
}

/** A definition with defaults: the "default" queue, a 60 s lease, no retry beyond the first. */
export function defineJob<P>(
  definition: Omit<JobDefinition<P>, "leaseMs" | "queue" | "retry"> &
    Partial<Pick<JobDefinition<P>, "leaseMs" | "queue" | "retry">>,
): JobDefinition<P> {
  const def = {
    leaseMs: DEFAULT_LEASE_MS,
    queue: DEFAULT_QUEUE,
    retry: { maxAttempts: 1, backoff: () => 0 },
    ...definition,
  };
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(def.id)) throw new Error(`bad job id "${def.id}"`);
  if (def.retry.maxAttempts < 1) throw new Error(`${def.id}: maxAttempts must be at least 1`);
  if (def.schedule && def.schedule.everyMs < 1000)
    throw new Error(`${def.id}: a schedule's slots must be at least a second`);
  return def;
}

export const cronPayload = z.object({ slot: z.iso.datetime() });

/**
 * A job that runs once per slot of its schedule across all runners (see `Schedule`). The handler
 * gets the slot's start. A slot nobody ran in time is not made up later; the next one comes.
 */
export function defineCronJob(definition: {
  id: string;
  everyMs: number;
  handler: (slot: Date, ctx: JobContext) => Promise<void>;
  leaseMs?: number;
  queue?: string;
  retry?: RetryPolicy;
}): JobDefinition<z.infer<typeof cronPayload>> {
  const { everyMs, handler, ...rest } = definition;
  return defineJob({
    ...rest,
    payload: cronPayload,
    schedule: { everyMs },
    handler: (payload, ctx) => handler(new Date(payload.slot), ctx),
  });
}

/** Waits of `delays[attempt - 1]`, then `then` for every later attempt. */
export function stepBackoff(delays: number[], then: number) {
  return (attempt: number) => delays[attempt - 1] ?? then;
}

/** The job's next state once claim number `attempt` ended with `outcome` at `now`. */
export function nextState(
  retry: RetryPolicy,
  attempt: number,
  outcome: Outcome,
  now: Date,
): Settled {
  if (outcome.ok) return { status: "succeeded", finishedAt: now };
  if (outcome.retry !== false && attempt < retry.maxAttempts)
    return {
      status: "queued",
      runAt: new Date(now.getTime() + retry.backoff(attempt)),
      error: outcome.error,
    };
  return { status: "failed", finishedAt: now, error: outcome.error };
}
