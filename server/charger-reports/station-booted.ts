import type { DbTx } from "../db";
import { appendEvent, type StationEvent } from "../events/append-event";
import type { ChargerContext } from "../charging/connections";
import { armProfileResends } from "../charging-profiles/resend-after-boot";

export type BootReport = {
  vendor: string | null;
  model: string | null;
  serial: string | null;
  firmwareVersion: string | null;
};

/**
 * What a boot records: the station's identity and firmware (a serial only when reported), and
 * `station.booted`. A boot is always accepted. SIM identifiers are never stored. One plan for the
 * message alone (`stationBooted`) and in a batch (`recordCallBatch`); both arm the re-send of the
 * charging profiles a reboot may have lost (`armProfileResends`).
 */
export function planBoot(charger: ChargerContext, boot: BootReport, now: Date) {
  const event: StationEvent = {
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
  };
  return {
    station: {
      bootVendor: boot.vendor,
      bootModel: boot.model,
      firmwareVersion: boot.firmwareVersion,
      bootedAt: now,
      lastSeenAt: now,
      ...(boot.serial ? { serial: boot.serial } : {}),
    },
    event,
  };
}

/** A station booted (1.6 and 2.x BootNotification), recorded alone (`planBoot`). */
export async function stationBooted(
  tx: DbTx,
  charger: ChargerContext,
  boot: BootReport,
  now = new Date(),
) {
  const plan = planBoot(charger, boot, now);
  await tx.station.update({ where: { id: charger.stationId }, data: plan.station });
  await armProfileResends(tx, [charger.stationId]);
  await appendEvent({ db: tx, tenantId: charger.tenantId, ...plan.event });
}
