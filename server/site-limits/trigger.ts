import { z } from "zod";
import type { DbTx } from "../db";
import { DEFAULT_QUEUE } from "../jobs/define-job";
import { enqueue, type JobTarget } from "../jobs/enqueue";

/** The recomputation of a location's shares (its handler: `./site-limit-jobs.ts`). */
export const recomputeTarget: JobTarget<{ locationId: number; after?: number | undefined }> = {
  id: "site_limits.recompute",
  payload: z.object({
    locationId: z.number().int().positive(),
    /** a follow-up: runs after the recomputation that commits `after + 1` (waits for its lock) */
    after: z.number().int().min(0).optional(),
  }),
  queue: DEFAULT_QUEUE,
};

/** Asks for a recomputation of the location's shares, in the caller's transaction (an INSERT). */
export async function requestRecompute(tx: DbTx, locationId: number) {
  await enqueue(tx, recomputeTarget, { locationId });
}

/**
 * Asks for a recomputation when the station is under a site limit (its location's, covering it);
 * a read of the limit row, no lock (a charger message holds its station: the limit row comes
 * before stations in the lock order, so it is never locked here).
 */
export async function requestRecomputeForStation(tx: DbTx, stationId: number) {
  const rows = await tx.$queryRaw<{ location_id: number }[]>`
    SELECT l.location_id FROM stations s
      JOIN site_power_limits l ON l.location_id = s.location_id
     WHERE s.id = ${stationId} AND (l.covers_all OR s.id = ANY(l.station_ids))`;
  if (rows[0]) await requestRecompute(tx, rows[0].location_id);
  return rows[0]?.location_id ?? null;
}
