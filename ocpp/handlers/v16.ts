import type { ChargerContext } from "../../server/charging/connections";
import type { DbTx } from "../../server/db";
import { stationBooted, type BootReport } from "../../server/charger-reports/station-booted";
import { statusReported, type StatusReport } from "../../server/charger-reports/status-reported";
import { tokenPresented } from "../../server/charger-reports/token-presented";
import { transactionEnded } from "../../server/charger-reports/transaction-ended";
import { transactionStarted } from "../../server/charger-reports/transaction-started";
import { transactionUpdated } from "../../server/charger-reports/transaction-updated";
import { deviceStatusReported } from "../../server/device-jobs/record-status";
import { reservationUsed } from "../../server/reservations/reservations";
import type { V16Payloads } from "./v16-payloads";
import {
  bootAccepted,
  byAction,
  reportsInBatches,
  chargerTime,
  unknownVendor,
  type HandlerTable,
} from "./types";

const idTagInfo = async (tx: DbTx, charger: ChargerContext, idTag: string) => ({
  idTagInfo: { status: await tokenPresented(tx, charger, idTag) },
});

const bootReport = (p: V16Payloads["BootNotification"]): BootReport => ({
  vendor: p.chargePointVendor,
  model: p.chargePointModel,
  serial: p.chargePointSerialNumber ?? p.chargeBoxSerialNumber ?? null,
  firmwareVersion: p.firmwareVersion ?? null,
});

const statusReport = (p: V16Payloads["StatusNotification"]): StatusReport => ({
  connectorNumber: p.connectorId,
  ocppStatus: p.status,
  errorCode: p.errorCode,
  info: p.info ?? null,
  vendorId: p.vendorId ?? null,
  vendorErrorCode: p.vendorErrorCode ?? null,
  timestamp: chargerTime(p.timestamp),
});

/** OCPP 1.6J charger-initiated actions. Any other action is answered politely by the gateway. */
const handlers: HandlerTable<V16Payloads> = {
  BootNotification: async (tx, charger, p) => {
    const now = new Date();
    await stationBooted(tx, charger, bootReport(p), now);
    return bootAccepted(now);
  },
  // The gateway marks every message's station seen (ocpp/last-seen.ts): nothing else to record.
  Heartbeat: () => Promise.resolve({ currentTime: new Date().toISOString() }),
  StatusNotification: async (tx, charger, p) => {
    await statusReported(tx, charger, statusReport(p));
    return {};
  },
  Authorize: (tx, charger, p) => idTagInfo(tx, charger, p.idTag),
  StartTransaction: async (tx, charger, p) => {
    const reply = await idTagInfo(tx, charger, p.idTag);
    const at = chargerTime(p.timestamp);
    const transaction = await transactionStarted(tx, charger, {
      connector: { connectorNumber: p.connectorId },
      idToken: p.idTag,
      meterStartWh: p.meterStart,
      startedAt: at,
      reportedAt: at,
    });
    if (p.reservationId !== undefined)
      await reservationUsed(tx, charger, p.reservationId, transaction.id, at);
    return { transactionId: transaction.id, ...reply };
  },
  StopTransaction: async (tx, charger, p) => {
    await transactionEnded(tx, charger, {
      transaction: { reference: String(p.transactionId) },
      meterValues: p.transactionData ?? [],
      meterStopWh: p.meterStop,
      endedAt: chargerTime(p.timestamp),
      reason: p.reason ?? "Local",
    });
    return p.idTag ? idTagInfo(tx, charger, p.idTag) : {};
  },
  MeterValues: async (tx, charger, p) => {
    await transactionUpdated(tx, charger, {
      transaction:
        p.transactionId !== undefined
          ? { reference: String(p.transactionId) }
          : { inProgressOn: { connectorNumber: p.connectorId } },
      meterValues: p.meterValue,
    });
    return {};
  },
  DataTransfer: unknownVendor,
  DiagnosticsStatusNotification: async (tx, charger, p) => {
    await deviceStatusReported(tx, charger, { kind: "diagnostics", status: p.status });
    return {};
  },
  FirmwareStatusNotification: async (tx, charger, p) => {
    await deviceStatusReported(tx, charger, { kind: "firmware", status: p.status });
    return {};
  },
};

export const v16Handlers = byAction(handlers);

/** What the gateway may record in batches (`recordCallBatch`), read as the handlers above read it. */
export const v16Batchable = reportsInBatches(bootReport, statusReport);
