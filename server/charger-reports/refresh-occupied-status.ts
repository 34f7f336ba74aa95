import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import type { ChargerContext } from "../charging/connections";
import { normalizeStatus } from "./connector-status";

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
