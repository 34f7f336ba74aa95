import { gatewayAlive } from "../charging/gateways";
import type { Db, DbTx } from "../db";
import { lockStation } from "../db/locks";
import { inTransaction } from "../db/retry";
import { env } from "../env";
import { Prisma } from "../generated/prisma/client";
import { defineCronJob } from "../jobs/define-job";
import { createOperation } from "../operations/create-operation";
import { resolveDisplayAdapter } from "./adapters";
import { displayChanged } from "./display-events";
import { displayCharger } from "./present-display";

/** How often the sweep looks for displays to push (once per slot across all processes). */
export const DISPLAY_SYNC_MS = 1_000;
/** A charger that connected is given this long to send its BootNotification before a push. */
export const BOOT_GRACE_MS = 10_000;

/**
 * The displays that need the charger now, as SQL: on a station a live gateway holds, that has
 * booted on this connection (or had BOOT_GRACE_MS to; a 2.x charger takes no call before its boot
 * is accepted), with no push or clear of theirs in flight, and
 * - never decided for (set, or set again, since), or
 * - the charger rebooted since the last push (a reboot may lose the screen's message), or
 * - the tariff shown has a new version (a price change), or
 * - not acknowledged yet and the station has a newer connection than the last attempt's.
 * Deleted displays are due only while their screen may still show them (shown, or a clear due).
 */
function dueDisplays(now: Date) {
  return Prisma.sql`
    FROM displays d
    JOIN stations s ON s.id = d.station_id
    JOIN gateways g ON g.id = s.gateway_id
    LEFT JOIN operations o ON o.id = d.operation_id
    LEFT JOIN tariffs t ON t.id = d.tariff_id
   WHERE ${gatewayAlive("g")}
     AND s.booted_at IS NOT NULL
     AND (s.booted_at >= s.connected_at
          OR s.connected_at <= ${now}::timestamptz - make_interval(secs => ${BOOT_GRACE_MS / 1000}))
     AND (o.id IS NULL OR o.status <> 'dispatching')
     AND (d.deleted_at IS NULL OR d.shown OR d.state = 'pending')
     AND (d.pushed_generation IS NULL
          OR d.pushed_boot_at IS DISTINCT FROM s.booted_at
          OR (d.deleted_at IS NULL AND t.current_version IS DISTINCT FROM d.pushed_tariff_version)
          OR (d.state = 'pending' AND d.pushed_generation <> s.connection_generation))`;
}

/**
 * Brings every due display's screen to its desired state (`dueDisplays`), each in its own
 * transaction that locks the station (the lock order), checks the display is still due, and then
 * creates the push or clear operation (sent by the gateway holding the socket after the commit,
 * never inside it; the operation is the journaled attempt) or records what needs no call. Runs
 * from the cron job every DISPLAY_SYNC_MS, and for one station right after a display is set or
 * deleted. Does nothing while displays are switched off. Returns the operations created.
 */
export async function syncDisplays({
  db,
  stationId,
  now = new Date(),
  limit = 200,
}: {
  db: Db;
  stationId?: number;
  now?: Date;
  limit?: number;
}) {
  if (!env().displaysEnabled) return [];
  const only = stationId === undefined ? Prisma.empty : Prisma.sql`AND d.station_id = ${stationId}`;
  const due = await db.$queryRaw<{ id: string; station_id: number }[]>`
    SELECT d.id, d.station_id ${dueDisplays(now)} ${only} ORDER BY d.id LIMIT ${limit}`;
  const sent: string[] = [];
  for (const candidate of due) {
    const operationId = await inTransaction(db, async (tx) => {
      await lockStation(tx, candidate.station_id);
      const [row] = await tx.$queryRaw<{ id: string }[]>`
        SELECT d.id ${dueDisplays(now)} AND d.id = ${candidate.id} FOR NO KEY UPDATE OF d`;
      if (!row) return null; // decided by another run meanwhile
      return syncOne(tx, candidate.id);
    });
    if (operationId) sent.push(operationId);
  }
  return sent;
}

/** One due display, its station locked: the next operation's id, or null when none is needed. */
async function syncOne(tx: DbTx, displayId: string): Promise<string | null> {
  const display = await tx.display.findUniqueOrThrow({
    where: { id: displayId },
    include: { evse: { select: { evseNumber: true } } },
  });
  const station = await tx.station.findUniqueOrThrow({
    where: { id: display.stationId },
    select: {
      tenantId: true,
      gatewayId: true,
      protocol: true,
      bootVendor: true,
      bootModel: true,
      bootedAt: true,
      connectionGeneration: true,
      _count: { select: { evses: true } },
    },
  });
  const tariff = display.tariffId
    ? await tx.tariff.findUnique({
        where: { id: display.tariffId },
        select: { currentVersion: true },
      })
    : null;
  const { adapter } = resolveDisplayAdapter(displayCharger(station, station._count.evses));
  const rebooted =
    display.pushedBootAt !== null && display.pushedBootAt.getTime() !== station.bootedAt?.getTime();
  const decided = {
    pushedBootAt: station.bootedAt,
    pushedGeneration: station.connectionGeneration,
    pushedTariffVersion: tariff?.currentVersion ?? null,
  };
  const evseNumber = display.evse.evseNumber;
  const save = async (data: Prisma.DisplayUpdateInput, announce: boolean) => {
    const updated = await tx.display.update({ where: { id: display.id }, data });
    if (announce) await displayChanged(tx, updated, evseNumber);
  };
  const push = async (scope: "display.push" | "display.clear", data: Prisma.DisplayUpdateInput) => {
    const operation = await createOperation({
      db: tx,
      tenantId: station.tenantId,
      stationId: display.stationId,
      apiKeyId: null,
      scope,
      action: scope === "display.push" ? "SetDisplayMessage" : "ClearDisplayMessage",
      request: {
        display_id: display.id,
        evse_number: evseNumber,
        ...(scope === "display.push"
          ? {
              url: display.url,
              tariff_id: display.tariffId,
              tariff_version: tariff?.currentVersion ?? null,
            }
          : {}),
      },
      gatewayId: station.gatewayId,
    });
    // Final at once only when the station went offline meanwhile (`station_offline`): its
    // onSettled found the display's previous operation, so its refusal is recorded here.
    const refused = operation.status === "dispatching" ? null : operation.result?.error;
    const updated = await tx.display.update({
      where: { id: display.id },
      data: {
        ...data,
        ...decided,
        operationId: operation.id,
        ...(refused ? { lastError: refused } : {}),
      },
    });
    if (refused || updated.state !== display.state || updated.shown !== display.shown)
      await displayChanged(tx, updated, evseNumber);
    return operation.id;
  };

  if (display.deletedAt) {
    // Only a display whose screen may still show its QR is due.
    if (adapter?.clearCall && display.state === "pending") return push("display.clear", {});
    const forgotten = rebooted && adapter?.kept !== "until_overwritten";
    await save({ ...decided, ...(forgotten ? { shown: false } : {}) }, forgotten);
    return null;
  }
  if (!adapter) {
    // No adapter drives this screen (1.6, multi-EVSE without a vendor adapter): a printed QR is
    // needed. Decided again after the next boot (the charger may have changed).
    const changed = display.state !== "unsupported" || display.shown;
    await save(
      { ...decided, state: "unsupported", shown: false, lastError: Prisma.DbNull },
      changed,
    );
    return null;
  }
  const keepsShown = !rebooted || adapter.kept === "until_overwritten";
  return push("display.push", {
    state: "pending",
    ...(keepsShown ? {} : { shown: false }),
  });
}

/** The sweep as a cron job, once per DISPLAY_SYNC_MS across all processes. */
export function displaySyncJob({ everyMs = DISPLAY_SYNC_MS }: { everyMs?: number } = {}) {
  return defineCronJob({
    id: "displays.sync",
    everyMs,
    handler: async (_slot, ctx) => {
      await syncDisplays({ db: ctx.db });
    },
  });
}
