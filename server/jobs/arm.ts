import type { DbTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { JOBS_CHANNEL, type JobTarget } from "./enqueue";

/** What a station's re-armable job carries. */
export type StationJobPayload = { station_id: number };

/**
 * Arms one job per station (`<definition>:<station id>`) for the stations `stations` selects (a
 * query returning their `id`), due `delayMs` from now: a station's job that is queued already is
 * left as it is (what happened since is coalesced into its run), one that finished is queued
 * again (attempt 0), and one that is running is waited for (its row is locked until its run's
 * transaction ends) and then queued again. So a change committed after a run read its data is
 * never missed, as long as that run reads inside a transaction that holds its job row
 * (`ctx.holds`) and settles there (`ctx.settle`).
 *
 * Locks: the job rows, in station id order, after whatever station rows the caller holds; a
 * run of such a job takes its station first and its job row second (server/db/README.md).
 */
export async function armStationJobs(
  tx: DbTx,
  definition: JobTarget<StationJobPayload>,
  stations: Prisma.Sql,
  delayMs: number,
) {
  await tx.$executeRaw`
    WITH armed AS (
      INSERT INTO jobs (id, name, queue, payload, run_at)
      SELECT ${definition.id} || ':' || s.id, ${definition.id}, ${definition.queue},
             jsonb_build_object('station_id', s.id),
             now() + make_interval(secs => ${delayMs / 1000})
        FROM (${stations}) s
       ORDER BY s.id
      ON CONFLICT (id) DO UPDATE
         SET status = 'queued', attempt = 0, run_at = EXCLUDED.run_at, lease_until = NULL,
             locked_by = NULL, last_error = NULL, finished_at = NULL
       WHERE jobs.status IN ('succeeded', 'failed')
      RETURNING queue)
    SELECT pg_notify(${JOBS_CHANNEL}, q.queue) FROM (SELECT DISTINCT queue FROM armed) q`;
}
