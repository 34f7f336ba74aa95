import { queryRows, type DbTx } from "../db";
import { Prisma } from "../generated/prisma/client";
import type { JobDefinition } from "./define-job";

export type ClaimedJob = {
  id: string;
  name: string;
  queue: string;
  payload: unknown;
  /** this claim's number: the fencing token */
  attempt: number;
  leaseUntil: Date;
};

export type ClaimOptions = {
  runnerId: string;
  /** only jobs these definitions run are claimed; each claim is leased for its definition's leaseMs */
  definitions: readonly JobDefinition[];
  queues: readonly string[];
  now: Date;
};

/**
 * Claims up to `limit` due jobs: queued ones whose `run_at` has come, and running ones whose lease
 * lapsed (their runner died). Each claimed row gets the next attempt number, this runner's name
 * and a lease, in the one statement that selected it. `FOR UPDATE SKIP LOCKED` makes concurrent
 * claimers pass over each other's rows instead of waiting or taking them twice, so any number of
 * runners in any number of processes can claim side by side and a job has one holder at a time.
 */
export async function claimJobs(
  db: DbTx,
  options: ClaimOptions & { limit: number },
): Promise<ClaimedJob[]> {
  const names = options.definitions.map((d) => d.id);
  const due = Prisma.sql`
    SELECT id FROM jobs
     WHERE status IN ('queued', 'running') AND run_at <= ${options.now}
       AND queue = ANY(${[...options.queues]}::text[]) AND name = ANY(${names}::text[])
     ORDER BY run_at
     LIMIT ${options.limit}
     FOR UPDATE SKIP LOCKED`;
  return claim(db, options, due);
}

/**
 * Claims one job by id if it is due and nobody holds it (the fast path: the process that
 * committed a job runs it at once). The same claim as a runner's, so a crash leaves it to them.
 */
export async function claimJob(
  db: DbTx,
  id: string,
  options: Omit<ClaimOptions, "queues">,
): Promise<ClaimedJob | null> {
  const names = options.definitions.map((d) => d.id);
  const due = Prisma.sql`
    SELECT id FROM jobs
     WHERE id = ${id} AND status IN ('queued', 'running') AND run_at <= ${options.now}
       AND name = ANY(${names}::text[])
     FOR UPDATE SKIP LOCKED`;
  const [job] = await claim(db, options, due);
  return job ?? null;
}

async function claim(db: DbTx, options: Omit<ClaimOptions, "queues">, due: Prisma.Sql) {
  const names = options.definitions.map((d) => d.id);
  const leases = options.definitions.map((d) => d.leaseMs);
  // While running, run_at is the lease's end: the one index on run_at finds both what falls due
  // and what a dead runner left behind. Prepared once per connection (two texts: by due time, by
  // id): every runner polls with it.
  return queryRows<ClaimedJob>(
    db,
    Prisma.sql`/* prepared */
    WITH due AS (${due}),
         lease AS (SELECT * FROM unnest(${names}::text[], ${leases}::int[]) AS l(name, ms))
    UPDATE jobs j
       SET status = 'running', attempt = j.attempt + 1, locked_by = ${options.runnerId},
           lease_until = ${options.now}::timestamptz + lease.ms * interval '1 millisecond',
           run_at = ${options.now}::timestamptz + lease.ms * interval '1 millisecond'
      FROM due, lease
     WHERE j.id = due.id AND lease.name = j.name
    RETURNING j.id, j.name, j.queue, j.payload, j.attempt, j.lease_until AS "leaseUntil"`,
  );
}
