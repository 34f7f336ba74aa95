import { z } from "zod";
import { owningGateway } from "../charging/gateways";
import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import { inTransaction } from "../db/retry";
import { Prisma } from "../generated/prisma/client";
import { armStationJobs, type StationJobPayload } from "../jobs/arm";
import { defineJob } from "../jobs/define-job";
import {
  SEND_SCOPE,
  desiredList,
  listDifference,
  localListSchema,
  writeListSend,
} from "./local-list";

/**
 * How long a station's sync waits after the first change that armed it: every change within it
 * (a burst of tokens issued or blocked) goes in one differential.
 */
export const LIST_SYNC_DELAY_MS = 1_000;

/** Stations that keep their list in step: their charger confirmed a list version once. */
const KEPT = Prisma.sql`local_list_version > 0`;

/**
 * What a station's sync did: `sent` a new version; `in_step` (its charger holds the desired
 * list); `busy` (a send is in flight: its success arms the sync again); `offline` (its connect
 * arms it); `not_kept` (no list was ever confirmed, or the station is gone).
 */
export type SyncOutcome = "sent" | "in_step" | "busy" | "offline" | "not_kept";

/**
 * Brings one station's list in step with the tenant's tokens, in the caller's transaction, which
 * holds the station row: a differential of the next version when the held list differs (full
 * when the service does not know what the charger holds), by `writeListSend` (one send in
 * flight, versions in order, the fallback on a refused differential).
 */
export async function syncStationList(tx: DbTx, stationId: number): Promise<SyncOutcome> {
  const station = await tx.station.findUnique({
    where: { id: stationId },
    select: { tenantId: true, localListVersion: true, localList: true },
  });
  if (!station || station.localListVersion === 0) return "not_kept";
  if (!(await owningGateway(tx, stationId))) return "offline";
  const busy = await tx.operation.findFirst({
    where: { stationId, scope: SEND_SCOPE, status: "dispatching" },
    select: { id: true },
  });
  if (busy) return "busy";
  const held = station.localList === null ? null : localListSchema.parse(station.localList);
  if (held && listDifference(held, await desiredList(tx, station.tenantId)).length === 0)
    return "in_step";
  await writeListSend({
    db: tx,
    tenantId: station.tenantId,
    stationId,
    updateType: "differential",
    apiKeyId: null,
  });
  return "sent";
}

/**
 * `local_list.sync`, one per station (`local_list.sync:<station id>`), armed by `armListSyncs`:
 * locks the station, then its job row (so a change committed meanwhile arms it again rather than
 * go unseen), syncs the list and settles in that one transaction.
 */
export const localListSyncJob = defineJob<StationJobPayload>({
  id: "local_list.sync",
  payload: z.object({ station_id: z.number().int() }),
  retry: { maxAttempts: 3, backoff: (attempt) => attempt * 2_000 },
  async handler({ station_id }, ctx) {
    await inTransaction(ctx.db, async (tx) => {
      await lockStation(tx, station_id);
      if (!(await ctx.holds(tx))) return;
      await syncStationList(tx, station_id);
      await ctx.settle(tx, { ok: true });
    });
  },
});

/**
 * Arms the list sync of the stations that keep a list (`local_list_version > 0`): every one of a
 * tenant whose tokens changed (issued, blocked, unblocked), or the named ones (a connect, a
 * confirmed send, a send to try again after `delayMs`). Offline and busy stations are skipped by
 * the sync and armed again by their connect or the send's settling.
 */
export async function armListSyncs(
  tx: DbTx,
  which: { tenantId: number } | { stationIds: readonly number[] },
  delayMs = LIST_SYNC_DELAY_MS,
) {
  if ("stationIds" in which && which.stationIds.length === 0) return;
  const where =
    "tenantId" in which
      ? Prisma.sql`tenant_id = ${which.tenantId}`
      : Prisma.sql`id = ANY(${[...which.stationIds]}::int[])`;
  await armStationJobs(
    tx,
    localListSyncJob,
    Prisma.sql`SELECT id FROM stations WHERE ${where} AND ${KEPT}`,
    delayMs,
  );
}
