/**
 * The calls a virtual charger makes, per protocol family, built from what it knows (ocpp/sandbox/
 * README.md, Frames). Every payload holds only fields of the official schema; the charger's
 * ocpp-rpc client validates each one before it is sent (strict mode), and the gateway again.
 */

export type ConnectorRef = {
  id: number;
  connectorNumber: number;
  evseNumber: number;
  evseConnectorNumber: number;
};

/** How a transaction ended, in the charger's words (mapped per protocol below). */
export type EndReason = "Remote" | "DeAuthorized" | "HardReset" | "SoftReset";

export type ConnectorState = "Available" | "Occupied" | "Unavailable";

/** One meter report: the register and the readings beside it. */
export type MeterReading = {
  at: Date;
  registerWh: number;
  /** average power over the advance, W */
  powerW: number;
  voltageV: number;
  socPercent: number | null;
};

export type Call = { action: string; payload: Record<string, unknown> };

export type TransactionRef = {
  reference: string;
  connector: ConnectorRef;
  idToken: string;
  /** 2.x: the TransactionEvent sequence number to use next */
  seqNo: number;
  remoteStartId?: number;
};

export const BOOT = {
  vendor: "ChargeCloud",
  firmwareVersion: "sandbox-1",
};

/** The model a virtual charger reports: its current type and nominal power. */
export const modelName = (nominalPowerW: number) =>
  `Virtual ${isDc(nominalPowerW) ? "DC" : "AC"} ${Math.round(nominalPowerW / 1000)} kW`;

/** Above 22 kW a sandbox connector is a DC charger (400 V); otherwise AC (230 V). */
export const isDc = (nominalPowerW: number) => nominalPowerW > 22_000;
export const voltageOf = (nominalPowerW: number) => (isDc(nominalPowerW) ? 400 : 230);

const round1 = (n: number) => Math.round(n * 10) / 10;

export type Frames = {
  boot(serial: string, nominalPowerW: number, reason?: "PowerUp" | "Triggered"): Call;
  heartbeat(): Call;
  status(connector: ConnectorRef, state: ConnectorState, at: Date): Call;
  /** 2.x only: the transaction's Started event; 1.6: StartTransaction (its answer names it) */
  started(
    tx: Omit<TransactionRef, "reference"> & { reference?: string },
    meter: MeterReading,
  ): Call;
  meter(tx: TransactionRef, meter: MeterReading): Call;
  ended(tx: TransactionRef, meter: MeterReading, reason: EndReason): Call;
};

/** OCPP 2.0.1 (and 2.1, whose shapes for these calls are the same). */
export const v2Frames: Frames = {
  boot: (serial, nominalPowerW, reason = "PowerUp") => ({
    action: "BootNotification",
    payload: {
      reason,
      chargingStation: {
        vendorName: BOOT.vendor,
        model: modelName(nominalPowerW),
        serialNumber: serial,
        firmwareVersion: BOOT.firmwareVersion,
      },
    },
  }),
  heartbeat: () => ({ action: "Heartbeat", payload: {} }),
  status: (connector, state, at) => ({
    action: "StatusNotification",
    payload: {
      timestamp: at.toISOString(),
      connectorStatus: state,
      evseId: connector.evseNumber,
      connectorId: connector.evseConnectorNumber,
    },
  }),
  started: (tx, meter) => ({
    action: "TransactionEvent",
    payload: {
      eventType: "Started",
      timestamp: meter.at.toISOString(),
      triggerReason: "RemoteStart",
      seqNo: tx.seqNo,
      transactionInfo: {
        transactionId: tx.reference,
        chargingState: "Charging",
        ...(tx.remoteStartId !== undefined ? { remoteStartId: tx.remoteStartId } : {}),
      },
      evse: { id: tx.connector.evseNumber, connectorId: tx.connector.evseConnectorNumber },
      idToken: { idToken: tx.idToken, type: "Central" },
      meterValue: [v2MeterValue(meter, "Transaction.Begin", false)],
    },
  }),
  meter: (tx, meter) => ({
    action: "TransactionEvent",
    payload: {
      eventType: "Updated",
      timestamp: meter.at.toISOString(),
      triggerReason: "MeterValuePeriodic",
      seqNo: tx.seqNo,
      transactionInfo: { transactionId: tx.reference, chargingState: "Charging" },
      meterValue: [v2MeterValue(meter, "Sample.Periodic", true)],
    },
  }),
  ended: (tx, meter, reason) => ({
    action: "TransactionEvent",
    payload: {
      eventType: "Ended",
      timestamp: meter.at.toISOString(),
      triggerReason: V2_TRIGGER[reason],
      seqNo: tx.seqNo,
      transactionInfo: {
        transactionId: tx.reference,
        chargingState: "Idle",
        stoppedReason: V2_STOPPED[reason],
      },
      meterValue: [v2MeterValue(meter, "Transaction.End", false)],
    },
  }),
};

const V2_TRIGGER: Record<EndReason, string> = {
  Remote: "RemoteStop",
  DeAuthorized: "Deauthorized",
  HardReset: "ResetCommand",
  SoftReset: "ResetCommand",
};
const V2_STOPPED: Record<EndReason, string> = {
  Remote: "Remote",
  DeAuthorized: "DeAuthorized",
  HardReset: "ImmediateReset",
  SoftReset: "ImmediateReset",
};

function v2MeterValue(meter: MeterReading, context: string, readings: boolean) {
  const value = (v: number, measurand: string, unit: string, location?: string) => ({
    value: v,
    context,
    measurand,
    ...(location ? { location } : {}),
    unitOfMeasure: { unit },
  });
  return {
    timestamp: meter.at.toISOString(),
    sampledValue: [
      value(meter.registerWh, "Energy.Active.Import.Register", "Wh"),
      ...(readings
        ? [
            value(meter.powerW, "Power.Active.Import", "W"),
            value(round1(meter.powerW / meter.voltageV), "Current.Import", "A"),
            value(meter.voltageV, "Voltage", "V"),
          ]
        : []),
      ...(meter.socPercent !== null ? [value(meter.socPercent, "SoC", "Percent", "EV")] : []),
    ],
  };
}

/** OCPP 1.6J. */
export const v16Frames: Frames = {
  boot: (serial, nominalPowerW) => ({
    action: "BootNotification",
    payload: {
      chargePointVendor: BOOT.vendor,
      chargePointModel: modelName(nominalPowerW),
      chargePointSerialNumber: serial,
      firmwareVersion: BOOT.firmwareVersion,
    },
  }),
  heartbeat: () => ({ action: "Heartbeat", payload: {} }),
  status: (connector, state, at) => ({
    action: "StatusNotification",
    payload: {
      connectorId: connector.connectorNumber,
      errorCode: "NoError",
      status: state === "Occupied" ? "Charging" : state,
      timestamp: at.toISOString(),
    },
  }),
  started: (tx, meter) => ({
    action: "StartTransaction",
    payload: {
      connectorId: tx.connector.connectorNumber,
      idTag: tx.idToken,
      meterStart: meter.registerWh,
      timestamp: meter.at.toISOString(),
    },
  }),
  meter: (tx, meter) => ({
    action: "MeterValues",
    payload: {
      connectorId: tx.connector.connectorNumber,
      transactionId: Number(tx.reference),
      meterValue: [v16MeterValue(meter, "Sample.Periodic", true)],
    },
  }),
  ended: (tx, meter, reason) => ({
    action: "StopTransaction",
    payload: {
      transactionId: Number(tx.reference),
      meterStop: meter.registerWh,
      timestamp: meter.at.toISOString(),
      reason,
      transactionData: [v16MeterValue(meter, "Transaction.End", false)],
    },
  }),
};

function v16MeterValue(meter: MeterReading, context: string, readings: boolean) {
  const value = (v: number, measurand: string, unit: string, location?: string) => ({
    value: String(v),
    context,
    format: "Raw",
    measurand,
    ...(location ? { location } : {}),
    unit,
  });
  return {
    timestamp: meter.at.toISOString(),
    sampledValue: [
      value(meter.registerWh, "Energy.Active.Import.Register", "Wh"),
      ...(readings
        ? [
            value(meter.powerW, "Power.Active.Import", "W"),
            value(round1(meter.powerW / meter.voltageV), "Current.Import", "A"),
            value(meter.voltageV, "Voltage", "V"),
          ]
        : []),
      ...(meter.socPercent !== null ? [value(meter.socPercent, "SoC", "Percent", "EV")] : []),
    ],
  };
}
