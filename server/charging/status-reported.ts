import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import type { ChargerContext } from "./connections";
import { faultTransition, normalizeStatus } from "./connector-status";
import { presentFault } from "./record-status";

export type StatusReport = {
  /** 1.6: connectorId (0 = whole station). 2.x: evseId + connectorId (evseId 0 = whole station). */
  connectorNumber?: number;
  evseNumber?: number;
  evseConnectorNumber?: number;
  ocppStatus: string;
  errorCode: string | null;
  info: string | null;
  vendorId: string | null;
  vendorErrorCode: string | null;
  timestamp: Date;
};

/**
 * A station reported a connector's status (1.6 and 2.x StatusNotification): the connector's
 * normalized status (an event only when it changes) and the fault table of spec section 3. A
 * whole-station report (connector 0 / EVSE 0) only moves faults.
 */
export async function statusReported(tx: DbTx, charger: ChargerContext, report: StatusReport) {
  const wholeStation = report.connectorNumber === 0 || report.evseNumber === 0;
  const connector = wholeStation
    ? null
    : await tx.connector.findFirst({
        where:
          report.connectorNumber !== undefined
            ? { stationId: charger.stationId, connectorNumber: report.connectorNumber }
            : {
                stationId: charger.stationId,
                evse: { evseNumber: report.evseNumber },
                evseConnectorNumber: report.evseConnectorNumber,
              },
        include: { evse: true },
      });
  if (!wholeStation && !connector) return; // a connector the station was not registered with
  const evseNumber = connector?.evse.evseNumber ?? null;
  const errorCode = charger.protocol === "ocpp1.6" ? report.errorCode : null;
  const occurredAt = report.timestamp;
  const station = { id: charger.stationId, occurredAt };

  if (connector) {
    const active = await tx.transaction.findFirst({
      where: { connectorId: connector.id, endedAt: null },
      select: { id: true },
    });
    const status = normalizeStatus(charger.protocol, report.ocppStatus, active !== null);
    await tx.connector.update({
      where: { id: connector.id },
      data: { status, ocppStatus: report.ocppStatus, errorCode, statusUpdatedAt: occurredAt },
    });
    if (status !== connector.status) {
      await appendEvent({
        db: tx,
        tenantId: charger.tenantId,
        type: "connector.status_changed",
        resourceId: connector.id,
        station,
        data: {
          connector_id: connector.id,
          evse_number: evseNumber,
          status,
          previous_status: connector.status,
          ocpp_status: report.ocppStatus,
          error_code: errorCode,
        },
      });
    }
  }

  const open = await tx.fault.findFirst({
    where: { stationId: charger.stationId, connectorId: connector?.id ?? null, clearedAt: null },
    orderBy: { id: "desc" },
  });
  const move = faultTransition(open, {
    protocol: charger.protocol,
    connectorNumber: report.connectorNumber,
    evseNumber: evseNumber ?? report.evseNumber,
    connectorId: connector?.id ?? null,
    ocppStatus: report.ocppStatus,
    errorCode: report.errorCode,
    info: report.info,
    vendorId: report.vendorId,
    vendorErrorCode: report.vendorErrorCode,
  });
  if (move.clear && open) {
    const cleared = await tx.fault.update({
      where: { id: open.id },
      data: { clearedAt: occurredAt },
    });
    await appendEvent({
      db: tx,
      tenantId: charger.tenantId,
      type: "station.fault_cleared",
      resourceId: cleared.id,
      station,
      data: presentFault(cleared),
    });
  }
  if (move.open) {
    const fault = await tx.fault.create({
      data: {
        tenantId: charger.tenantId,
        stationId: charger.stationId,
        ...move.open,
        openedAt: occurredAt,
      },
    });
    await appendEvent({
      db: tx,
      tenantId: charger.tenantId,
      type: "station.fault_opened",
      resourceId: fault.id,
      station,
      data: presentFault(fault),
    });
  }
}
