import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import type { ChargerContext } from "./connections";

export type BootReport = {
  vendor: string | null;
  model: string | null;
  serial: string | null;
  firmwareVersion: string | null;
};

/** Records a BootNotification; it is always accepted. Never stores SIM identifiers. */
export async function recordBoot(
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

export async function recordSeen(tx: DbTx, charger: ChargerContext, now = new Date()) {
  await tx.station.update({ where: { id: charger.stationId }, data: { lastSeenAt: now } });
}
