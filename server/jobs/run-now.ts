import type { Db } from "../db";
import { log } from "../log";
import { claimJob, claimJobs } from "./claim";
import { scheduleCronSlots } from "./cron";
import type { JobDefinition, Settled } from "./define-job";
import { executeJob } from "./execute";
import { definitionsById } from "./runner";

export type RunNowOptions = {
  db: Db;
  definitions: readonly JobDefinition[];
  /** the clock: what is due, when leases lapse and retries fall (tests move it) */
  now?: Date;
  /** default: every queue the definitions name */
  queues?: readonly string[];
  limit?: number;
  runnerId?: string;
  /** insert the current cron slot of scheduled definitions first, as a runner's tick does */
  cron?: boolean;
};

/**
 * Claims the jobs due at `now` once (the same claim and lease as a runner's) and runs them all;
 * returns how many it claimed. For tests and scripts that want work done without a runner, on a
 * clock of their own.
 */
export async function runJobsNow(options: RunNowOptions): Promise<number> {
  const byId = definitionsById(options.definitions);
  const definitions = [...byId.values()];
  const now = options.now ?? new Date();
  if (options.cron) await scheduleCronSlots(options.db, definitions, now);
  const runnerId = options.runnerId ?? "run-now";
  const claimed = await claimJobs(options.db, {
    runnerId,
    definitions,
    queues: options.queues ?? [...new Set(definitions.map((d) => d.queue))],
    now,
    limit: options.limit ?? 100,
  });
  await Promise.all(
    claimed.map((job) =>
      executeJob(job, byId.get(job.name)!, { db: options.db, runnerId, now: () => now }),
    ),
  );
  return claimed.length;
}

/**
 * The fast path: the process that just committed job `jobId` claims and runs it at once instead
 * of waiting for a runner. It goes through the same claim, so a runner that got there first keeps
 * it (this returns null), and if this process dies mid-run the lease lapses and a runner takes
 * over. Returns what the job became.
 */
export async function runJobNow(options: {
  db: Db;
  definitions: readonly JobDefinition[];
  jobId: string;
  runnerId?: string;
}): Promise<Settled | null> {
  const byId = definitionsById(options.definitions);
  const runnerId = options.runnerId ?? "run-now";
  const now = () => new Date();
  const job = await claimJob(options.db, options.jobId, {
    runnerId,
    definitions: [...byId.values()],
    now: now(),
  });
  if (!job) return null;
  return executeJob(job, byId.get(job.name)!, { db: options.db, runnerId, now });
}

/** Runs started by `startJobNow` that have not ended yet. */
const started = new Set<Promise<unknown>>();

/**
 * `runJobNow` without waiting for it: an API answer that waits a few seconds for a job's outcome
 * starts the job here and waits on its own deadline, so a slow call delays the job, never the
 * answer. The run keeps its lease (and its call) after the answer went out. Resolves when the run
 * ends; never rejects.
 */
export function startJobNow(options: Parameters<typeof runJobNow>[0]): Promise<void> {
  const run: Promise<void> = runJobNow(options)
    .then(() => undefined)
    .catch((error: unknown) => log.warn("job fast path failed", { job: options.jobId, error }))
    .finally(() => started.delete(run));
  started.add(run);
  return run;
}

/** Resolves once every run `startJobNow` began so far has ended (tests; a graceful stop). */
export async function startedJobsSettled(): Promise<void> {
  while (started.size > 0) await Promise.allSettled([...started]);
}

/** Resolves when `runs` end or `deadline` (epoch ms) comes, whichever is first. */
export async function untilDone(runs: Promise<unknown>[], deadline: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(runs),
    new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
  ]);
  clearTimeout(timer);
}
