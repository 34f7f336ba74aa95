import { authorizeToken } from "../../server/charging/authorize-token";
import { recordBoot, recordSeen } from "../../server/charging/record-boot";
import { recordMeterValues } from "../../server/charging/record-meter";
import { recordStatus } from "../../server/charging/record-status";
import { endTransaction, startTransaction } from "../../server/charging/record-transaction";
import { acknowledge, chargerTime, unknownVendor, type ChargerHandler } from "./types";

export const HEARTBEAT_INTERVAL_SECONDS = 300;

/** OCPP 1.6J charger-initiated actions. Any other action is answered politely by the gateway. */
export const v16Handlers: Record<string, ChargerHandler> = {
  BootNotification: async (tx, charger, p) => {
    await recordBoot(tx, charger, {
      vendor: p.chargePointVendor ?? null,
      model: p.chargePointModel ?? null,
      serial: p.chargePointSerialNumber ?? p.chargeBoxSerialNumber ?? null,
      firmwareVersion: p.firmwareVersion ?? null,
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
      connectorNumber: p.connectorId,
      ocppStatus: p.status,
      errorCode: p.errorCode ?? null,
      info: p.info ?? null,
      vendorId: p.vendorId ?? null,
      vendorErrorCode: p.vendorErrorCode ?? null,
      timestamp: chargerTime(p.timestamp),
    });
    return {};
  },
  Authorize: async (tx, charger, p) => ({
    idTagInfo: { status: await authorizeToken(tx, charger.tenantId, p.idTag) },
  }),
  StartTransaction: async (tx, charger, p) => {
    const status = await authorizeToken(tx, charger.tenantId, p.idTag);
    const transaction = await startTransaction(tx, charger, {
      connector: { connectorNumber: p.connectorId },
      idToken: p.idTag,
      meterStartWh: p.meterStart,
      startedAt: chargerTime(p.timestamp),
    });
    return { transactionId: transaction.id, idTagInfo: { status } };
  },
  StopTransaction: async (tx, charger, p) => {
    const transaction = await tx.transaction.findFirst({
      where: { stationId: charger.stationId, reference: String(p.transactionId) },
    });
    if (transaction) {
      const updated = await recordMeterValues(tx, charger, transaction, p.transactionData ?? []);
      await endTransaction(tx, updated, {
        meterStopWh: p.meterStop,
        endedAt: chargerTime(p.timestamp),
        reason: p.reason ?? "Local",
      });
    }
    return p.idTag
      ? { idTagInfo: { status: await authorizeToken(tx, charger.tenantId, p.idTag) } }
      : {};
  },
  MeterValues: async (tx, charger, p) => {
    const transaction =
      p.transactionId !== undefined
        ? await tx.transaction.findFirst({
            where: { stationId: charger.stationId, reference: String(p.transactionId) },
          })
        : await tx.transaction.findFirst({
            where: {
              stationId: charger.stationId,
              connector: { connectorNumber: p.connectorId },
              endedAt: null,
            },
          });
    if (transaction) await recordMeterValues(tx, charger, transaction, p.meterValue);
    return {};
  },
  DataTransfer: unknownVendor,
  DiagnosticsStatusNotification: acknowledge,
  FirmwareStatusNotification: acknowledge,
};
