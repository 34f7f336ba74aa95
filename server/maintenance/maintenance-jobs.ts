import { releaseDeadGateways } from "../charging/connections";
import { defineCronJob } from "../jobs/define-job";
import { log } from "../log";
import { ensurePartitions } from "./partitions";
import { applyRetention } from "./retention";

/**
 * Retention, once per 10-minute slot across every process (it ran in every gateway copy before).
 * Deletes in bounded batches, so a slot's run is short; its lease is long all the same, since a
 * second run of one slot would only repeat idempotent deletes.
 */
export const retentionJob = defineCronJob({
  id: "maintenance.retention",
  everyMs: 10 * 60_000,
  leaseMs: 10 * 60_000,
  handler: async (_slot, ctx) => {
    log.info("retention sweep", await applyRetention({ db: ctx.db, now: ctx.now() }));
  },
});

/**
 * Stations held by a gateway whose heartbeat stopped go offline (with their events), once per
 * 5-second slot across every process. A gateway is stale after 15 s, so a dead one's stations
 * are released within about 20 s.
 */
export const releaseDeadGatewaysJob = defineCronJob({
  id: "maintenance.release-dead-gateways",
  everyMs: 5_000,
  handler: async (_slot, ctx) => {
    await releaseDeadGateways({ db: ctx.db });
  },
});

/**
 * The partitions of the coming periods (`partitions.ts`), once an hour across every process: days
 * are created three ahead, so the job may miss two days of slots before a row lands in a default
 * partition, and even then the insert succeeds (the next run moves those rows out).
 */
export const partitionsJob = defineCronJob({
  id: "maintenance.partitions",
  everyMs: 60 * 60_000,
  handler: async (_slot, ctx) => {
    const created = await ensurePartitions({ db: ctx.db, now: ctx.now() });
    if (created.length) log.info("partitions created", { created });
  },
});
