import type { DbTx } from "../db";
import type { Display } from "../generated/prisma/client";
import { resolveDisplayAdapter, type DisplayCharger } from "./adapters";
import { displayImageUrl } from "./display-images";
import type { DeliveryState, DisplayResource, StationDisplay } from "./display-schema";

/** The API shape of a display (the `display.delivery_changed` event carries the same). */
export function presentDisplay(row: Display, evseNumber: number): DisplayResource {
  const error = row.lastError as DisplayResource["delivery"]["error"];
  return {
    id: row.id,
    station_id: row.stationId,
    evse_number: evseNumber,
    url: row.url,
    tariff_id: row.tariffId,
    image_url: displayImageUrl(row.imageSha256),
    deleted: row.deletedAt !== null,
    delivery: { state: row.state as DeliveryState, shown: row.shown, error: error ?? null },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The station fields an adapter is chosen from; a station that never booted has no protocol yet. */
export type StationForDisplay = {
  protocol: string | null;
  bootVendor: string | null;
  bootModel: string | null;
  bootedAt: Date | null;
};

export function displayCharger(station: StationForDisplay, evseCount: number): DisplayCharger {
  return {
    protocol: station.bootedAt ? station.protocol : null,
    vendor: station.bootVendor,
    model: station.bootModel,
    evseCount,
  };
}

/** The station's `display` field: its adapter, and each EVSE's display not deleted. */
export function presentStationDisplay(
  charger: DisplayCharger,
  displays: readonly (Display & { evseNumber: number })[],
): StationDisplay {
  const { adapter, reason } = resolveDisplayAdapter(charger);
  return {
    adapter: adapter?.name ?? null,
    reason,
    clear: adapter ? adapter.clear : null,
    evses: displays
      .filter((d) => d.deletedAt === null)
      .sort((a, b) => a.evseNumber - b.evseNumber)
      .map((d) => presentDisplay(d, d.evseNumber)),
  };
}

/** The displays (with their EVSE numbers) of these stations, in one statement. */
export async function loadStationDisplays(db: DbTx, stationIds: readonly number[]) {
  const byStation = new Map<number, (Display & { evseNumber: number })[]>();
  if (stationIds.length === 0) return byStation;
  const rows = await db.display.findMany({
    where: { stationId: { in: [...stationIds] } },
    include: { evse: { select: { evseNumber: true } } },
  });
  for (const { evse, ...row } of rows) {
    const list = byStation.get(row.stationId) ?? [];
    list.push({ ...row, evseNumber: evse.evseNumber });
    byStation.set(row.stationId, list);
  }
  return byStation;
}
