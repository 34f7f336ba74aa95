import { z } from "zod";
import type { DbTx } from "../../db";
import { byChargerStatus, refuse, type OperationKind } from "../../operations/kinds/kind";
import { Prisma } from "../../generated/prisma/client";
import { pricingSummary } from "../../pricing";
import { tariffSnapshot } from "../../tariffs/tariff-snapshot";
import { resolveDisplayAdapter } from "../adapters";
import { displayImageUrl } from "../display-images";
import { displayChanged } from "../display-events";
import { displayCharger } from "../present-display";

/** What a push or clear keeps: the display, and what it was built from when it was created. */
const request = z.object({
  display_id: z.string(),
  evse_number: z.number().int(),
  url: z.string().optional(),
  tariff_id: z.number().int().nullable().optional(),
  tariff_version: z.number().int().nullable().optional(),
});

/** The display's station as an adapter sees it: what it reported at boot and its EVSE count. */
async function chargerOf(db: DbTx, stationId: number) {
  const station = await db.station.findUniqueOrThrow({
    where: { id: stationId },
    select: {
      protocol: true,
      bootVendor: true,
      bootModel: true,
      bootedAt: true,
      _count: { select: { evses: true } },
    },
  });
  return displayCharger(station, station._count.evses);
}

/**
 * A display's push (`server/displays/sync-displays.ts` creates it): SetDisplayMessage as the
 * charger's adapter builds it (QR code format in 2.1, a URI to the QR PNG in 2.0.1), carrying the
 * price of the tariff version the push was made for. The message id is the EVSE number, so a
 * repeated push replaces the same message rather than adding one. Only the display's latest
 * operation moves it: `applied` and shown when accepted, still `pending` with the refusal in
 * `delivery.error` otherwise (pushed again on the next connection, reboot or price change).
 */
export const displayPush: OperationKind = {
  scope: "display.push",
  carriesSecret: false,
  async build({ operation, station, db }) {
    const input = request.parse(operation.request);
    const { adapter, reason } = resolveDisplayAdapter(await chargerOf(db, station.id));
    if (!adapter)
      return refuse("display_unsupported", "No adapter drives this screen.", { reason });
    const display = await db.display.findUnique({ where: { id: input.display_id } });
    if (!display || display.deletedAt)
      return refuse("not_found", "The display was deleted; nothing to push.");
    let priceText: string | null = null;
    if (input.tariff_id && input.tariff_version) {
      const version = await db.tariffVersion.findUnique({
        where: { tariffId_version: { tariffId: input.tariff_id, version: input.tariff_version } },
      });
      if (version) priceText = pricingSummary(tariffSnapshot(version));
    }
    return adapter.push(
      {
        evseNumber: input.evse_number,
        url: input.url ?? display.url,
        imageUrl: displayImageUrl(display.imageSha256),
        priceText,
      },
      station.protocol,
    );
  },
  interpret: (answer) =>
    byChargerStatus((answer as { status?: unknown } | null)?.status, answer, ACCEPTED),
  async onSettled(tx, operation, outcome) {
    const { display_id, evse_number } = request.parse(operation.request);
    const display = await tx.display.findUnique({ where: { id: display_id } });
    if (display?.operationId !== operation.id || display.deletedAt) return;
    const applied = outcome.status === "succeeded";
    const updated = await tx.display.update({
      where: { id: display.id },
      data: applied
        ? { state: "applied", shown: true, lastError: NO_ERROR }
        : { lastError: errorOf(outcome.result) },
    });
    await displayChanged(tx, updated, evse_number);
  },
};

/**
 * A deleted display's ClearDisplayMessage, for adapters whose screens clear (`clear: true`).
 * Accepted, or `Unknown` (the charger holds no such message), leaves the screen clear.
 */
export const displayClear: OperationKind = {
  scope: "display.clear",
  carriesSecret: false,
  async build({ operation, station, db }) {
    const input = request.parse(operation.request);
    const { adapter, reason } = resolveDisplayAdapter(await chargerOf(db, station.id));
    if (!adapter?.clearCall)
      return refuse("display_unsupported", "This screen cannot be cleared.", { reason });
    return adapter.clearCall(input.evse_number);
  },
  interpret: (answer) =>
    byChargerStatus((answer as { status?: unknown } | null)?.status, answer, CLEARED),
  async onSettled(tx, operation, outcome) {
    const { display_id, evse_number } = request.parse(operation.request);
    const display = await tx.display.findUnique({ where: { id: display_id } });
    if (display?.operationId !== operation.id || !display.deletedAt) return;
    const cleared = outcome.status === "succeeded";
    const updated = await tx.display.update({
      where: { id: display.id },
      data: cleared
        ? { state: "applied", shown: false, lastError: NO_ERROR }
        : { lastError: errorOf(outcome.result) },
    });
    await displayChanged(tx, updated, evse_number);
  },
};

const ACCEPTED = new Set(["Accepted"]);
const CLEARED = new Set(["Accepted", "Unknown"]);

const NO_ERROR = Prisma.DbNull;

function errorOf(result: Record<string, unknown>): Prisma.InputJsonObject {
  const error = result.error as { code?: string; message?: string; details?: unknown } | undefined;
  return {
    code: error?.code ?? "charger_rejected",
    message: error?.message ?? "The charger did not accept the display.",
    details: error?.details ?? {},
  };
}
