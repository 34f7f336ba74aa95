import { authorizeToken } from "../../server/charging/authorize-token";
import { recordBoot, recordSeen } from "../../server/charging/record-boot";
import { recordMeterValues } from "../../server/charging/record-meter";
import { recordStatus, refreshOccupiedStatus } from "../../server/charging/record-status";
import { endTransaction, startTransaction } from "../../server/charging/record-transaction";
import { HEARTBEAT_INTERVAL_SECONDS } from "./v16";
import {
  acceptedReply,
  acknowledge,
  chargerTime,
  unknownVendor,
  type ChargerHandler,
} from "./types";

const idTokenInfo = async (
  tx: Parameters<ChargerHandler>[0],
  tenantId: number,
  idToken: { idToken: string } | undefined,
) =>
  idToken ? { idTokenInfo: { status: await authorizeToken(tx, tenantId, idToken.idToken) } } : {};

/** OCPP 2.0.1 and 2.1 charger-initiated actions (the same shapes for what the core records). */
export const v2Handlers: Record<string, ChargerHandler> = {
  BootNotification: async (tx, charger, p) => {
    const cs = p.chargingStation ?? {};
    await recordBoot(tx, charger, {
      vendor: cs.vendorName ?? null,
      model: cs.model ?? null,
      serial: cs.serialNumber ?? null,
      firmwareVersion: cs.firmwareVersion ?? null,
    });
    return {
      status: "Accepted",
      currentTime: new Date().toISOString(),
      interval: HEARTBEAT_INTERVAL_SECONDS,
    };
  },
  Heartbeat: async (tx, charger) => {
    await recordSeen(tx, charger);
    return { currentTime: new Date().toISOString() };
  },
  StatusNotification: async (tx, charger, p) => {
    await recordStatus(tx, charger, {
      evseNumber: p.evseId,
      evseConnectorNumber: p.connectorId,
      ocppStatus: p.connectorStatus,
      errorCode: null,
      info: null,
      vendorId: null,
      vendorErrorCode: null,
      timestamp: chargerTime(p.timestamp),
    });
    return {};
  },
  Authorize: async (tx, charger, p) => ({
    idTokenInfo: { status: await authorizeToken(tx, charger.tenantId, p.idToken.idToken) },
  }),
  TransactionEvent: async (tx, charger, p) => {
    const reference: string = p.transactionInfo.transactionId;
    let transaction = await tx.transaction.findUnique({
      where: { stationId_reference: { stationId: charger.stationId, reference } },
    });
    if (!transaction) {
      transaction = await startTransaction(tx, charger, {
        connector: p.evse
          ? { evseNumber: p.evse.id, evseConnectorNumber: p.evse.connectorId }
          : null,
        reference,
        idToken: p.idToken?.idToken ?? null,
        meterStartWh: null,
        // an `Updated` or `Ended` seen first leaves the start time unknown
        startedAt: p.eventType === "Started" ? chargerTime(p.timestamp) : null,
      });
      await refreshOccupiedStatus(tx, charger, transaction.connectorId, chargerTime(p.timestamp));
    }
    if (p.idToken && !transaction.idToken) {
      transaction = await tx.transaction.update({
        where: { id: transaction.id },
        data: { idToken: p.idToken.idToken },
      });
    }
    if (p.meterValue?.length)
      transaction = await recordMeterValues(tx, charger, transaction, p.meterValue);
    if (p.eventType === "Ended") {
      await endTransaction(tx, transaction, {
        meterStopWh:
          transaction.meterStartWh !== null
            ? Number(transaction.meterStartWh) + transaction.energyWh
            : null,
        endedAt: chargerTime(p.timestamp),
        reason: p.transactionInfo.stoppedReason ?? "Local",
      });
      await refreshOccupiedStatus(tx, charger, transaction.connectorId, chargerTime(p.timestamp));
    }
    return idTokenInfo(tx, charger.tenantId, p.idToken);
  },
  MeterValues: async (tx, charger, p) => {
    const transaction = await tx.transaction.findFirst({
      where: {
        stationId: charger.stationId,
        connector: { evse: { evseNumber: p.evseId } },
        endedAt: null,
      },
    });
    if (transaction) await recordMeterValues(tx, charger, transaction, p.meterValue);
    return {};
  },
  DataTransfer: unknownVendor,
  // Notifications the core acknowledges without recording (yet).
  NotifyReport: acknowledge,
  NotifyEvent: acknowledge,
  NotifyMonitoringReport: acknowledge,
  NotifyDisplayMessages: acknowledge,
  NotifyCustomerInformation: acknowledge,
  NotifyChargingLimit: acknowledge,
  NotifyEVChargingNeeds: acceptedReply,
  NotifyEVChargingSchedule: acceptedReply,
  SecurityEventNotification: acknowledge,
  FirmwareStatusNotification: acknowledge,
  LogStatusNotification: acknowledge,
  PublishFirmwareStatusNotification: acknowledge,
  ReservationStatusUpdate: acknowledge,
  ClearedChargingLimit: acknowledge,
  ReportChargingProfiles: acknowledge,
};
