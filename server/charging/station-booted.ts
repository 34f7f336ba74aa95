import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import type { ChargerContext } from "./connections";

export type BootReport = {
  vendor: string | null;
  model: string | null;
  serial: string | null;
  firmwareVersion: string | null;
};

/**
 * A station booted (1.6 and 2.x BootNotification): its identity and firmware, and
 * `station.booted`. A boot is always accepted. SIM identifiers are never stored.
 */
export async function stationBooted(
  tx: DbTx,
  charger: ChargerContext,
  boot: BootReport,
  now = new Date(),
) {
  await tx.station.update({
    where: { id: charger.stationId },
    data: {
      bootVendor: boot.vendor,
      bootModel: boot.model,
      firmwareVersion: boot.firmwareVersion,
      bootedAt: now,
      lastSeenAt: now,
      ...(boot.serial ? { serial: boot.serial } : {}),
    },
  });
  await appendEvent({
    db: tx,
    tenantId: charger.tenantId,
    type: "station.booted",
    resourceId: charger.stationId,
    station: { id: charger.stationId, occurredAt: now },
    data: {
      station_id: charger.stationId,
      boot_status: "Accepted",
      booted_at: now.toISOString(),
      protocol: charger.protocol,
      vendor: boot.vendor,
      model: boot.model,
      serial: boot.serial,
      firmware_version: boot.firmwareVersion,
    },
  });
}
