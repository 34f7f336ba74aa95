import type { ChargerContext } from "../../server/charging/connections";
import type { DbTx } from "../../server/db";
import { stationBooted, type BootReport } from "../../server/charger-reports/station-booted";
import { statusReported, type StatusReport } from "../../server/charger-reports/status-reported";
import { chargingProfilesReported } from "../../server/charging-profiles/reported-profiles";
import { tokenPresented } from "../../server/charger-reports/token-presented";
import { transactionEnded } from "../../server/charger-reports/transaction-ended";
import { transactionUpdated } from "../../server/charger-reports/transaction-updated";
import { deviceStatusReported } from "../../server/device-jobs/record-status";
import { reservationStatusUpdated, reservationUsed } from "../../server/reservations/reservations";
import type { IdToken2, V2Payloads } from "./v2-payloads";
import {
  acceptedReply,
  acknowledge,
  bootAccepted,
  byAction,
  reportsInBatches,
  chargerTime,
  unknownVendor,
  type HandlerTable,
} from "./types";

const idTokenInfo = async (tx: DbTx, charger: ChargerContext, idToken: IdToken2 | undefined) =>
  idToken ? { idTokenInfo: { status: await tokenPresented(tx, charger, idToken.idToken) } } : {};

const bootReport = (p: V2Payloads["BootNotification"]): BootReport => ({
  vendor: p.chargingStation.vendorName,
  model: p.chargingStation.model,
  serial: p.chargingStation.serialNumber ?? null,
  firmwareVersion: p.chargingStation.firmwareVersion ?? null,
});

const statusReport = (p: V2Payloads["StatusNotification"]): StatusReport => ({
  evseNumber: p.evseId,
  evseConnectorNumber: p.connectorId,
  ocppStatus: p.connectorStatus,
  errorCode: null,
  info: null,
  vendorId: null,
  vendorErrorCode: null,
  timestamp: chargerTime(p.timestamp),
});

/** OCPP 2.0.1 and 2.1 charger-initiated actions (the same shapes for what the core records). */
const handlers: HandlerTable<V2Payloads> = {
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
  Authorize: (tx, charger, p) => idTokenInfo(tx, charger, p.idToken),
  TransactionEvent: async (tx, charger, p) => {
    const at = chargerTime(p.timestamp);
    const idToken = p.idToken?.idToken ?? null;
    const report = {
      transaction: {
        reference: p.transactionInfo.transactionId,
        // Any event may be the first to arrive: it starts the transaction (when, only Started says).
        firstSeen: {
          connector: p.evse
            ? { evseNumber: p.evse.id, evseConnectorNumber: p.evse.connectorId }
            : null,
          idToken,
          meterStartWh: null,
          startedAt: p.eventType === "Started" ? at : null,
          reportedAt: at,
        },
      },
      idToken,
      meterValues: p.meterValue ?? [],
    };
    const transaction =
      p.eventType === "Ended"
        ? await transactionEnded(tx, charger, {
            ...report,
            endedAt: at,
            reason: p.transactionInfo.stoppedReason ?? "Local",
          })
        : await transactionUpdated(tx, charger, report);
    // The reservation this transaction ends by using it (any event may carry it).
    if (p.reservationId !== undefined && transaction)
      await reservationUsed(tx, charger, p.reservationId, transaction.id, at);
    return idTokenInfo(tx, charger, p.idToken);
  },
  MeterValues: async (tx, charger, p) => {
    await transactionUpdated(tx, charger, {
      transaction: { inProgressOn: { evseNumber: p.evseId } },
      meterValues: p.meterValue,
    });
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
  FirmwareStatusNotification: async (tx, charger, p) => {
    await deviceStatusReported(tx, charger, {
      kind: "firmware",
      status: p.status,
      requestId: p.requestId,
    });
    return {};
  },
  LogStatusNotification: async (tx, charger, p) => {
    await deviceStatusReported(tx, charger, {
      kind: "diagnostics",
      status: p.status,
      requestId: p.requestId,
    });
    return {};
  },
  PublishFirmwareStatusNotification: acknowledge,
  ReservationStatusUpdate: async (tx, charger, p) => {
    await reservationStatusUpdated(tx, charger, p.reservationId, p.reservationUpdateStatus);
    return {};
  },
  ClearedChargingLimit: acknowledge,
  ReportChargingProfiles: async (tx, charger, p) => {
    await chargingProfilesReported(tx, charger, p);
    return {};
  },
};

export const v2Handlers = byAction(handlers);

/** What the gateway may record in batches (`recordCallBatch`), read as the handlers above read it. */
export const v2Batchable = reportsInBatches(bootReport, statusReport);
