import pg from "pg";
import type { Db } from "../db";
import { newId } from "../lib/ids";
import { log } from "../log";
import { claimJobs } from "./claim";
import { scheduleCronSlots } from "./cron";
import { DEFAULT_QUEUE, type JobDefinition } from "./define-job";
import { JOBS_CHANNEL } from "./enqueue";
import { executeJob } from "./execute";
import { watchQueue } from "../metrics/job-queues";
import { settleBatcher } from "./settle-batch";

export type JobRunnerOptions = {
  db: Db;
  /** for the LISTEN connection (a pooled one cannot hold a LISTEN) */
  databaseUrl: string;
  definitions: readonly JobDefinition[];
  /** the queues this runner serves; a job in another queue is left to runners that serve it */
  queues?: readonly string[];
  /**
   * jobs run at once by this runner (default 50). Under a backlog a claim takes the free half of
   * the slots, and the jobs of a claim share their reads and settles: more slots, fewer statements
   * per job (bench/README.md, webhooks.ts).
   */
  concurrency?: number;
  /** how often it looks for due work without a NOTIFY (retries, cron slots, lapsed leases) */
  pollMs?: number;
  runnerId?: string;
  now?: () => Date;
};

export type JobRunner = {
  id: string;
  /** look for due work now */
  wake: () => void;
  /** stops claiming, then waits up to `graceMs` for running jobs (their leases cover the rest) */
  stop: (graceMs?: number) => Promise<void>;
};

/** Checks a definition list: one definition per id, the kernel's own lookups depend on it. */
export function definitionsById(definitions: readonly JobDefinition[]) {
  const byId = new Map<string, JobDefinition>();
  for (const d of definitions) {
    if (byId.has(d.id)) throw new Error(`two job definitions share the id "${d.id}"`);
    byId.set(d.id, d);
  }
  return byId;
}

/**
 * A job runner: claims due jobs of its queues (up to `concurrency` at once) when a NOTIFY says a
 * job was committed to one of them, whenever a running job finishes, and every `pollMs` (which
 * also inserts cron slots). Any number of runners in any number of processes may run; the claim
 * gives each job to one of them at a time, and a lease lets others take over a dead one's jobs.
 */
export async function startJobRunner(options: JobRunnerOptions): Promise<JobRunner> {
  const { db } = options;
  const byId = definitionsById(options.definitions);
  const definitions = [...byId.values()];
  const queues = options.queues ?? [DEFAULT_QUEUE];
  const served = new Set(queues);
  const concurrency = options.concurrency ?? 50;
  const refillAt = Math.floor(concurrency / 2);
  const pollMs = options.pollMs ?? 1_000;
  const now = options.now ?? (() => new Date());
  const runnerId = options.runnerId ?? newId("run");
  const cronSeen = new Map<string, number>();
  const unwatch = queues.map((queue) => watchQueue(queue)); // the queue gauges report them
  const batcher = settleBatcher(db);

  const listener = new pg.Client({ connectionString: options.databaseUrl });
  // Without its LISTEN the runner still finds work on its poll, only later.
  listener.on("error", (error) => log.error("job runner listener failed", { runnerId, error }));
  await listener.connect();
  await listener.query(`LISTEN ${JOBS_CHANNEL}`);
  listener.on("notification", (message) => {
    if (message.channel === JOBS_CHANNEL && served.has(message.payload ?? "")) wake();
  });

  const running = new Set<Promise<unknown>>();
  let stopped = false;
  let filling = false;
  let again = false;

  // One claim at a time, for the slots free when it starts. A NOTIFY or the poll during a claim
  // makes it look once more; a finished job asks for a claim only once half the slots are free,
  // so under a backlog a claim takes a batch (and the batch's first reads share round trips).
  async function fill() {
    if (filling) return void (again = true);
    filling = true;
    try {
      do {
        again = false;
        const free = concurrency - running.size;
        if (stopped || free <= 0) break;
        const claimed = await claimJobs(db, {
          runnerId,
          definitions,
          queues,
          now: now(),
          limit: free,
        });
        for (const job of claimed) {
          const run = executeJob(job, byId.get(job.name)!, { db, runnerId, now, batcher }).finally(
            () => {
              running.delete(run);
              if (!filling && running.size <= refillAt) void fill();
            },
          );
          running.add(run);
        }
      } while (again);
    } catch (error) {
      log.error("claiming jobs failed", { runnerId, error });
    } finally {
      filling = false;
    }
  }
  function wake() {
    if (!stopped) void fill();
  }

  let timer: NodeJS.Timeout | undefined;
  async function tick() {
    try {
      await scheduleCronSlots(db, definitions, now(), cronSeen);
    } catch (error) {
      log.error("scheduling cron slots failed", { runnerId, error });
    }
    wake();
    if (!stopped) timer = setTimeout(() => void tick(), pollMs).unref();
  }
  void tick();

  return {
    id: runnerId,
    wake,
    stop: async (graceMs = 5_000) => {
      stopped = true;
      clearTimeout(timer);
      unwatch.forEach((stop) => stop());
      await listener.end().catch(() => {});
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((resolve) => (grace = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(grace);
    },
  };
}
