import type { DbTx } from "../db";
import { Prisma } from "../generated/prisma/client";
import type { Settled } from "./define-job";

/*
 * The fence. A claim bumps `attempt`; every write that records an outcome names the attempt it
 * belongs to and changes the row only while that attempt is still the running one. A runner whose
 * lease lapsed and whose job another runner claimed (attempt + 1) therefore records nothing, and
 * neither does a second recording of one attempt. PostgreSQL re-checks these conditions on the
 * row's latest version after waiting for its lock, so a claim and a recording racing for the row
 * cannot both win.
 */

/** Locks the job row until `tx` ends; true when claim `attempt` still holds it. */
export async function holdsJob(tx: DbTx, jobId: string, attempt: number): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM jobs WHERE id = ${jobId} AND attempt = ${attempt} AND status = 'running'
       FOR UPDATE`;
  return rows.length === 1;
}

/**
 * The fenced write of the job's next state as one statement (`UPDATE … RETURNING id`): it changes
 * the row, and returns it, only while claim `attempt` still holds the job.
 */
export function settleStatement(jobId: string, attempt: number, next: Settled): Prisma.Sql {
  const runAt = next.status === "queued" ? next.runAt : null;
  const finishedAt = next.status === "queued" ? null : next.finishedAt;
  const error = next.status === "succeeded" ? null : next.error.slice(0, 2000);
  return Prisma.sql`
    UPDATE jobs
       SET status = ${next.status}, run_at = COALESCE(${runAt}::timestamptz, run_at),
           finished_at = ${finishedAt}::timestamptz, last_error = ${error},
           lease_until = NULL, locked_by = NULL
     WHERE id = ${jobId} AND attempt = ${attempt} AND status = 'running'
    RETURNING id`;
}

/** Writes the job's next state if claim `attempt` still holds it; false when fenced out. */
export async function recordSettled(
  tx: DbTx,
  jobId: string,
  attempt: number,
  next: Settled,
): Promise<boolean> {
  return (await tx.$executeRaw(settleStatement(jobId, attempt, next))) === 1;
}
