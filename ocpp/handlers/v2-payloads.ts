/**
 * OCPP 2.0.1 and 2.1 request payloads, as far as the handlers read them: each field as the
 * official schemas (ocpp-rpc's `lib/schemas/ocpp2_0_1.json`, `ocpp2_1.json`) define it, required
 * where both require it. The gateway validates every payload against its version's schema before
 * a handler sees it.
 */

import type { ReportChargingProfilesPayload } from "../../server/charging-profiles/reported-profiles";

export type SampledValue2 = {
  value: number;
  context?: string;
  measurand?: string;
  phase?: string;
  location?: string;
  unitOfMeasure?: { unit?: string; multiplier?: number };
};
export type MeterValue2 = { timestamp: string; sampledValue: SampledValue2[] };
export type IdToken2 = { idToken: string; type: string };

export type V2Payloads = {
  BootNotification: {
    reason: string;
    chargingStation: {
      vendorName: string;
      model: string;
      serialNumber?: string;
      firmwareVersion?: string;
    };
  };
  Heartbeat: Record<string, never>;
  StatusNotification: {
    timestamp: string;
    connectorStatus: string;
    evseId: number;
    connectorId: number;
  };
  Authorize: { idToken: IdToken2 };
  TransactionEvent: {
    eventType: "Started" | "Updated" | "Ended";
    timestamp: string;
    triggerReason: string;
    seqNo: number;
    transactionInfo: { transactionId: string; stoppedReason?: string };
    evse?: { id: number; connectorId?: number };
    idToken?: IdToken2;
    meterValue?: MeterValue2[];
    reservationId?: number;
  };
  MeterValues: { evseId: number; meterValue: MeterValue2[] };
  DataTransfer: unknown;
  NotifyReport: unknown;
  NotifyEvent: unknown;
  NotifyMonitoringReport: unknown;
  NotifyDisplayMessages: unknown;
  NotifyCustomerInformation: unknown;
  NotifyChargingLimit: unknown;
  NotifyEVChargingNeeds: unknown;
  NotifyEVChargingSchedule: unknown;
  SecurityEventNotification: unknown;
  FirmwareStatusNotification: { status: string; requestId?: number };
  LogStatusNotification: { status: string; requestId?: number };
  PublishFirmwareStatusNotification: unknown;
  ReservationStatusUpdate: {
    reservationId: number;
    reservationUpdateStatus: "Expired" | "Removed";
  };
  ClearedChargingLimit: unknown;
  ReportChargingProfiles: ReportChargingProfilesPayload;
};
