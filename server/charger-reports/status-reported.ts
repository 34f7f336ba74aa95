import type { DbTx } from "../db";
import { appendEvent, type StationEvent } from "../events/append-event";
import type { ChargerContext } from "../charging/connections";
import {
  faultTransition,
  normalizeStatus,
  type ConnectorStatus,
  type FaultDecision,
  type OpenFault,
} from "./connector-status";
import { presentFault } from "../charging/present-fault";

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

/** What a status report needs read, under its station's lock. */
export type StatusState = {
  /** the reported connector; null for a whole-station report or a connector never registered */
  connector: { id: number; status: string | null; evseNumber: number } | null;
  /** whether the connector has a transaction that has not ended */
  active: boolean;
  /** the newest fault open on the connector (or the whole station) */
  open: OpenFault | null;
};

export const isWholeStation = (report: StatusReport) =>
  report.connectorNumber === 0 || report.evseNumber === 0;

/**
 * What a status report changes, given what it read (`StatusState`): the connector's normalized
 * status (an event only when it changes) and the fault table's decision (spec section 3). One
 * plan for the message alone (`statusReported`) and in a batch (`recordCallBatch`). Null: the
 * report names a connector the station was not registered with, and records nothing.
 */
export function planStatus(charger: ChargerContext, report: StatusReport, state: StatusState) {
  const { connector } = state;
  if (!isWholeStation(report) && !connector) return null;
  const evseNumber = connector?.evseNumber ?? null;
  const errorCode = charger.protocol === "ocpp1.6" ? report.errorCode : null;
  const occurredAt = report.timestamp;
  let update: {
    id: number;
    data: {
      status: ConnectorStatus;
      ocppStatus: string;
      errorCode: string | null;
      statusUpdatedAt: Date;
    };
  } | null = null;
  let changed: StationEvent | null = null;
  if (connector) {
    const status = normalizeStatus(charger.protocol, report.ocppStatus, state.active);
    update = {
      id: connector.id,
      data: { status, ocppStatus: report.ocppStatus, errorCode, statusUpdatedAt: occurredAt },
    };
    if (status !== connector.status)
      changed = {
        type: "connector.status_changed",
        resourceId: connector.id,
        station: { id: charger.stationId, occurredAt },
        data: {
          connector_id: connector.id,
          evse_number: evseNumber,
          status,
          previous_status: connector.status,
          ocpp_status: report.ocppStatus,
          error_code: errorCode,
        },
      };
  }
  const fault: FaultDecision = faultTransition(state.open, {
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
  return { update, changed, fault };
}

/**
 * A station reported a connector's status (1.6 and 2.x StatusNotification), recorded alone: read,
 * planned (`planStatus`), then written: the connector and its event, then the fault moves. A
 * whole-station report (connector 0 / EVSE 0) only moves faults.
 */
export async function statusReported(tx: DbTx, charger: ChargerContext, report: StatusReport) {
  const found = isWholeStation(report)
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
  const active =
    found !== null &&
    (await tx.transaction.findFirst({
      where: { connectorId: found.id, endedAt: null },
      select: { id: true },
    })) !== null;
  const open = await tx.fault.findFirst({
    where: { stationId: charger.stationId, connectorId: found?.id ?? null, clearedAt: null },
    orderBy: { id: "desc" },
  });
  const connector = found && {
    id: found.id,
    status: found.status,
    evseNumber: found.evse.evseNumber,
  };
  const plan = planStatus(charger, report, { connector, active, open });
  if (!plan) return;
  const station = { id: charger.stationId, occurredAt: report.timestamp };
  if (plan.update)
    await tx.connector.update({ where: { id: plan.update.id }, data: plan.update.data });
  if (plan.changed) await appendEvent({ db: tx, tenantId: charger.tenantId, ...plan.changed });
  if (plan.fault.clear && open) {
    const cleared = await tx.fault.update({
      where: { id: open.id },
      data: { clearedAt: report.timestamp },
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
  if (plan.fault.open) {
    const fault = await tx.fault.create({
      data: {
        tenantId: charger.tenantId,
        stationId: charger.stationId,
        ...plan.fault.open,
        openedAt: report.timestamp,
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
