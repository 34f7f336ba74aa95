import { db as defaultDb, type Db, type DbTx } from "../db";
import { lockStation } from "../db/locks";
import { env } from "../env";
import { DomainError, fieldError, notFound } from "../errors";
import { Prisma } from "../generated/prisma/client";
import { newId } from "../lib/ids";
import { log } from "../log";
import { resolveDisplayAdapter } from "./adapters";
import { displayChanged } from "./display-events";
import { ensureDisplayImage } from "./display-images";
import type { SetDisplayInput } from "./display-schema";
import { displayCharger, presentDisplay } from "./present-display";
import { syncDisplays } from "./sync-displays";

type Target = { tenantId: number; stationId: number; evseNumber: number; db?: DbTx };

function refuseWhenDisabled() {
  if (!env().displaysEnabled)
    throw new DomainError(
      "displays_disabled",
      "Charger displays are switched off on this service; reads still work.",
      {},
    );
}

/** The tenant's station (locked when `lock`) and its EVSE, or 404. */
async function stationAndEvse(db: DbTx, t: Target, lock: boolean) {
  if (lock) await lockStation(db, t.stationId);
  const station = await db.station.findFirst({
    where: { id: t.stationId, tenantId: t.tenantId },
    select: {
      protocol: true,
      bootVendor: true,
      bootModel: true,
      bootedAt: true,
      _count: { select: { evses: true } },
    },
  });
  if (!station) throw notFound("station");
  const evse = await db.evse.findFirst({
    where: { stationId: t.stationId, evseNumber: t.evseNumber },
    select: { id: true, display: true },
  });
  if (!evse) throw notFound("evse");
  return { charger: displayCharger(station, station._count.evses), evse };
}

/**
 * Sets an EVSE's display (spec section 2, Charger display): the desired state is stored and the
 * answer is at once, `pending` (or `unsupported` where no adapter drives the screen); the push
 * follows (`syncDisplays`), when the charger is online. The QR PNG a 2.0.1 screen loads is
 * rendered here, once per URL. Setting what is already set changes nothing and announces nothing.
 */
export async function setDisplay({
  input,
  db = defaultDb(),
  ...target
}: Target & { input: SetDisplayInput }) {
  refuseWhenDisabled();
  const { charger, evse } = await stationAndEvse(db, target, true);
  const tariffId = input.tariff_id ?? null;
  if (tariffId !== null) {
    const tariff = await db.tariff.findFirst({
      where: { id: tariffId, tenantId: target.tenantId, deletedAt: null },
      select: { id: true },
    });
    if (!tariff)
      throw fieldError("validation_failed", "No such tariff in this tenant.", [
        { field: "tariff_id", message: "must be a tariff of this tenant", location: "body" },
      ]);
  }
  const existing = evse.display;
  if (
    existing &&
    !existing.deletedAt &&
    existing.url === input.url &&
    existing.tariffId === tariffId
  )
    return presentDisplay(existing, target.evseNumber);
  const imageSha256 = await ensureDisplayImage(db, input.url);
  const { adapter } = resolveDisplayAdapter(charger);
  const unsupported = charger.protocol !== null && !adapter;
  const desired = {
    url: input.url,
    tariffId,
    imageSha256,
    state: unsupported ? "unsupported" : "pending",
    shown: false,
    lastError: Prisma.DbNull,
    operationId: null,
    pushedBootAt: null,
    pushedGeneration: null,
    pushedTariffVersion: null,
    deletedAt: null,
  };
  const row = existing
    ? await db.display.update({ where: { id: existing.id }, data: desired })
    : await db.display.create({
        data: {
          id: newId("dsp"),
          tenantId: target.tenantId,
          stationId: target.stationId,
          evseId: evse.id,
          ...desired,
        },
      });
  await displayChanged(db, row, target.evseNumber);
  return presentDisplay(row, target.evseNumber);
}

/**
 * Deletes an EVSE's display. Where the adapter clears screens, a ClearDisplayMessage follows
 * (`shown` until the charger accepts it); where it does not (`clear: false`), the last QR stays
 * on the screen until the charger reboots or another QR overwrites it, and `shown` says so.
 */
export async function deleteDisplay({ db = defaultDb(), ...target }: Target) {
  refuseWhenDisabled();
  const { charger, evse } = await stationAndEvse(db, target, true);
  const existing = evse.display;
  if (!existing || existing.deletedAt) throw notFound("display");
  const { adapter } = resolveDisplayAdapter(charger);
  const row = await db.display.update({
    where: { id: existing.id },
    data: {
      deletedAt: new Date(),
      // A screen that clears is cleared by the next sync when it shows the QR or a push of it was
      // sent (its answer may still come); one never sent anything has nothing to clear.
      state:
        adapter?.clear && (existing.shown || existing.operationId) ? "pending" : existing.state,
      lastError: Prisma.DbNull,
      operationId: null,
      pushedGeneration: null,
    },
  });
  await displayChanged(db, row, target.evseNumber);
  return presentDisplay(row, target.evseNumber);
}

/** An EVSE's display (a deleted one too, while its row is kept), or 404. */
export async function getDisplay({ db = defaultDb(), ...target }: Target) {
  const { evse } = await stationAndEvse(db, target, false);
  if (!evse.display) throw notFound("display");
  return presentDisplay(evse.display, target.evseNumber);
}

/**
 * After a set or delete committed: the station's due displays pushed (or cleared) now rather than
 * at the next sweep. A failure here is only logged: the sweep does the same a second later.
 */
export async function syncStationDisplaysSoon(db: Db, stationId: number) {
  try {
    await syncDisplays({ db, stationId });
  } catch (error) {
    log.warn("display sync after a change failed; the sweep retries", { stationId, error });
  }
}
