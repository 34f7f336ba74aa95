import type { DbTx } from "../db";
import { newId } from "../lib/ids";
import type { JobDefinition } from "./define-job";

/** The NOTIFY channel runners LISTEN on; the payload is the queue's name. */
export const JOBS_CHANNEL = "jobs";

export type EnqueueOptions = {
  /** not before (default: now, the database's clock) */
  runAt?: Date;
  /**
   * Makes the id deterministic (`<definition id>:<key>`): enqueuing the same key again is a no-op,
   * whatever state the first job is in, for as long as retention keeps it.
   */
  key?: string;
};

/**
 * What enqueuing needs of a definition. A definition whose handler exists only in one process (a
 * gateway's, on its `gateway:<id>` queue, holding that process's sockets) is enqueued from any
 * process through its target: the same id, payload schema and queue.
 */
export type JobTarget<P> = Pick<JobDefinition<P>, "id" | "payload" | "queue">;

/**
 * Adds a job in `tx`: a plain INSERT, so it commits or rolls back with the caller's transaction
 * (a job exists exactly when the change that asked for it does). Runners of the job's queue are
 * woken by a NOTIFY that PostgreSQL delivers at commit, never before. Returns the job's id.
 */
export async function enqueue<P>(
  tx: DbTx,
  definition: JobTarget<P>,
  payload: P,
  options: EnqueueOptions = {},
): Promise<string> {
  const id = options.key === undefined ? newId("job") : `${definition.id}:${options.key}`;
  await insertJob(tx, {
    id,
    name: definition.id,
    queue: definition.queue,
    // parsed on the way in, so a runner never meets a payload its definition refuses
    payload: definition.payload.parse(payload),
    runAt: options.runAt ?? null,
  });
  return id;
}

/** The INSERT and its wake-up in one statement; an id that exists already inserts nothing. */
export async function insertJob(
  tx: DbTx,
  job: { id: string; name: string; queue: string; payload: unknown; runAt: Date | null },
) {
  await tx.$executeRaw`
    WITH inserted AS (
      INSERT INTO jobs (id, name, queue, payload, run_at)
      VALUES (${job.id}, ${job.name}, ${job.queue}, ${JSON.stringify(job.payload)}::jsonb,
              COALESCE(${job.runAt}::timestamptz, now()))
      ON CONFLICT (id) DO NOTHING
      RETURNING queue)
    SELECT pg_notify(${JOBS_CHANNEL}, queue) FROM inserted`;
}
