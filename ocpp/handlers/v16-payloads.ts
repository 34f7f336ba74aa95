/**
 * OCPP 1.6J request payloads, as far as the handlers read them: each field as the official schema
 * (ocpp-rpc's `lib/schemas/ocpp1_6.json`) defines it, required where the schema requires it. The
 * gateway validates every payload against that schema before a handler sees it.
 */

export type SampledValue16 = {
  value: string;
  context?: string;
  format?: "Raw" | "SignedData";
  measurand?: string;
  phase?: string;
  location?: string;
  unit?: string;
};
export type MeterValue16 = { timestamp: string; sampledValue: SampledValue16[] };

export type V16Payloads = {
  BootNotification: {
    chargePointVendor: string;
    chargePointModel: string;
    chargePointSerialNumber?: string;
    chargeBoxSerialNumber?: string;
    firmwareVersion?: string;
  };
  Heartbeat: Record<string, never>;
  StatusNotification: {
    connectorId: number;
    errorCode: string;
    status: string;
    info?: string;
    timestamp?: string;
    vendorId?: string;
    vendorErrorCode?: string;
  };
  Authorize: { idTag: string };
  StartTransaction: {
    connectorId: number;
    idTag: string;
    meterStart: number;
    timestamp: string;
    reservationId?: number;
  };
  StopTransaction: {
    transactionId: number;
    meterStop: number;
    timestamp: string;
    idTag?: string;
    reason?: string;
    transactionData?: MeterValue16[];
  };
  MeterValues: { connectorId: number; transactionId?: number; meterValue: MeterValue16[] };
  DataTransfer: unknown;
  DiagnosticsStatusNotification: { status: string };
  FirmwareStatusNotification: { status: string };
};
