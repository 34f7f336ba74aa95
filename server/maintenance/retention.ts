import type { Db } from "../db";
import { GATEWAY_QUEUE_PREFIX, gatewayAlive } from "../charging/gateways";
import { dropExpiredPartitions } from "./partitions";

/**
 * Spec section 8: meter samples in the log 7 days; cleared faults 90 days. Ours: dedup records
 * 24 h; finished jobs (server/jobs) a day when they succeeded, 30 days when they failed (a failure
 * is worth a look; a success only answers "did it run"); unfinished jobs only when they are
 * stranded on the queue of a gateway that is no longer alive (no runner will ever serve it);
 * processor events (Stripe webhook ids,
 * kept to deduplicate redeliveries) 30 days after they were processed: Stripe retries a delivery
 * for at most 3 days, so an older id can no longer come back. An event never processed stays: its
 * job has not finished with it, and deleting the id would let a redelivery act as new.
 *
 * meter.sampled events and charger messages live in day partitions (`partitions.ts`): a day goes
 * whole once all of it is past retention, so its rows are kept up to a day longer than stated
 * here (a floor, as the spec's "kept 7 days" is). Only rows that landed in a default partition
 * are deleted one by one.
 */
export const RETENTION = {
  meterSampledEventsDays: 7,
  clearedFaultsDays: 90,
  idempotencyRecordsHours: 24,
  chargerMessagesHours: 24,
  succeededJobsDays: 1,
  failedJobsDays: 30,
  processedProcessorEventsDays: 30,
};

const ago = (now: Date, ms: number) => new Date(now.getTime() - ms);
const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * Drops the partitions past retention, then deletes what else has outlived it, in bounded batches
 * so no sweep holds long locks. Safe to run from several processes at once (drops and deletes are
 * idempotent). Other events are kept.
 */
export async function applyRetention({
  db,
  now = new Date(),
  batch = 5_000,
}: {
  db: Db;
  now?: Date;
  batch?: number;
}) {
  const deleted = {
    dropped_partitions: await dropExpiredPartitions({
      db,
      now,
      keepMs: {
        events_meter_sampled: RETENTION.meterSampledEventsDays * DAY,
        charger_messages: RETENTION.chargerMessagesHours * HOUR,
      },
    }),
    meter_sampled_events: 0,
    cleared_faults: 0,
    idempotency_records: 0,
    charger_messages: 0,
    oidc_records: 0,
    rate_limit_windows: 0,
    succeeded_jobs: 0,
    failed_jobs: 0,
    processor_events: 0,
    stranded_jobs: 0,
  };
  const loop = async (run: () => Promise<number>) => {
    let total = 0;
    for (let n = batch; n === batch; total += n) n = await run();
    return total;
  };
  deleted.meter_sampled_events = await loop(
    () =>
      db.$executeRaw`DELETE FROM events_meter_sampled_default WHERE id IN (SELECT id FROM events_meter_sampled_default WHERE created_at < ${ago(now, RETENTION.meterSampledEventsDays * DAY)} LIMIT ${batch})`,
  );
  deleted.cleared_faults = await loop(
    () =>
      db.$executeRaw`DELETE FROM faults WHERE id IN (SELECT id FROM faults WHERE cleared_at < ${ago(now, RETENTION.clearedFaultsDays * DAY)} LIMIT ${batch})`,
  );
  deleted.idempotency_records = await loop(
    () =>
      db.$executeRaw`DELETE FROM idempotency_records WHERE (api_key_id, key) IN (SELECT api_key_id, key FROM idempotency_records WHERE created_at < ${ago(now, RETENTION.idempotencyRecordsHours * HOUR)} AND completed_at IS NOT NULL LIMIT ${batch})`,
  );
  deleted.charger_messages = await loop(
    () =>
      db.$executeRaw`DELETE FROM charger_messages_default WHERE (station_id, message_id) IN (SELECT station_id, message_id FROM charger_messages_default WHERE created_at < ${ago(now, RETENTION.chargerMessagesHours * HOUR)} LIMIT ${batch})`,
  );
  // The sign-in provider's expired sessions, grants, codes and interactions.
  deleted.oidc_records = await loop(
    () =>
      db.$executeRaw`DELETE FROM oidc_records WHERE (kind, id) IN (SELECT kind, id FROM oidc_records WHERE expires_at < ${now} LIMIT ${batch})`,
  );
  // Rate-limit windows (API keys, sign-in, charger passwords) last a minute; a row an hour old
  // counts nothing anyone reads. Charger guesses add a row per name tried, so they must go.
  deleted.rate_limit_windows = await loop(
    () =>
      db.$executeRaw`DELETE FROM rate_limit_windows WHERE api_key_id IN (SELECT api_key_id FROM rate_limit_windows WHERE window_start < ${ago(now, HOUR)} LIMIT ${batch})`,
  );
  // Queued and running jobs are never removed for their age.
  deleted.succeeded_jobs = await loop(
    () =>
      db.$executeRaw`DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE status = 'succeeded' AND finished_at < ${ago(now, RETENTION.succeededJobsDays * DAY)} LIMIT ${batch})`,
  );
  deleted.failed_jobs = await loop(
    () =>
      db.$executeRaw`DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE status = 'failed' AND finished_at < ${ago(now, RETENTION.failedJobsDays * DAY)} LIMIT ${batch})`,
  );
  deleted.processor_events = await loop(
    () =>
      db.$executeRaw`DELETE FROM processor_events WHERE id IN (SELECT id FROM processor_events WHERE processed_at < ${ago(now, RETENTION.processedProcessorEventsDays * DAY)} LIMIT ${batch})`,
  );
  // A gateway's queue dies with it (its id is new at every start), and its jobs need its sockets.
  deleted.stranded_jobs = await loop(
    () =>
      db.$executeRaw`DELETE FROM jobs WHERE id IN (SELECT j.id FROM jobs j LEFT JOIN gateways g ON g.id = substr(j.queue, ${GATEWAY_QUEUE_PREFIX.length + 1}) WHERE j.status IN ('queued', 'running') AND starts_with(j.queue, ${GATEWAY_QUEUE_PREFIX}) AND NOT ${gatewayAlive("g")} LIMIT ${batch})`,
  );
  return deleted;
}
