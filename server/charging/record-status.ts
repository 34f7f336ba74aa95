import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import type { Fault } from "../generated/prisma/client";
import type { ChargerContext } from "./connections";
import { normalizeStatus } from "./connector-status";

export function presentFault(f: Fault) {
  return {
    fault_id: f.id,
    connector_id: f.connectorId,
    evse_number: f.evseNumber,
    error_code: f.errorCode,
    info: f.info,
    vendor_id: f.vendorId,
    vendor_error_code: f.vendorErrorCode,
    ocpp_status: f.ocppStatus,
    opened_at: f.openedAt.toISOString(),
    cleared_at: f.clearedAt?.toISOString() ?? null,
  };
}

/**
 * OCPP 2.x `Occupied` reads `Charging` while the connector has an active transaction and
 * `Preparing` otherwise, so a transaction starting or ending can change the normalized status
 * without a new StatusNotification.
 */
export async function refreshOccupiedStatus(
  tx: DbTx,
  charger: ChargerContext,
  connectorId: number | null,
  occurredAt: Date,
) {
  if (!connectorId || charger.protocol === "ocpp1.6") return;
  const connector = await tx.connector.findUnique({
    where: { id: connectorId },
    include: { evse: true },
  });
  if (!connector || connector.ocppStatus !== "Occupied") return;
  const active = await tx.transaction.findFirst({
    where: { connectorId, endedAt: null },
    select: { id: true },
  });
  const status = normalizeStatus(charger.protocol, "Occupied", active !== null);
  if (status === connector.status) return;
  await tx.connector.update({
    where: { id: connectorId },
    data: { status, statusUpdatedAt: occurredAt },
  });
  await appendEvent({
    db: tx,
    tenantId: charger.tenantId,
    type: "connector.status_changed",
    resourceId: connectorId,
    station: { id: charger.stationId, occurredAt },
    data: {
      connector_id: connectorId,
      evse_number: connector.evse.evseNumber,
      status,
      previous_status: connector.status,
      ocpp_status: "Occupied",
      error_code: null,
    },
  });
}
