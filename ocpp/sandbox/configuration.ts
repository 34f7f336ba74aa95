/**
 * The configuration a virtual charger reports (OCPP 2.x GetVariables, 1.6 GetConfiguration) and
 * refuses to change (SetVariables, ChangeConfiguration): a sandbox charger's settings are fixed,
 * its password above all (a password it accepted would no longer match the one sealed for it).
 */
import { HEARTBEAT_INTERVAL_SECONDS } from "../handlers/types";

type Variable = { component: string; variable: string; value: (connectors: number) => string };

/** OCPP 2.x device-model variables a virtual charger answers (attribute `Actual`, read-only). */
const V2_VARIABLES: Variable[] = [
  {
    component: "OCPPCommCtrlr",
    variable: "HeartbeatInterval",
    value: () => String(HEARTBEAT_INTERVAL_SECONDS),
  },
  { component: "SampledDataCtrlr", variable: "TxUpdatedInterval", value: () => "0" },
  { component: "AuthCtrlr", variable: "AuthorizeRemoteStart", value: () => "false" },
  { component: "TxCtrlr", variable: "StopTxOnEVSideDisconnect", value: () => "true" },
  { component: "ChargingStation", variable: "AvailabilityState", value: () => "Available" },
  { component: "EVSE", variable: "Count", value: (n) => String(n) },
];

type GetVariableData = {
  component: { name: string; instance?: string; evse?: { id: number; connectorId?: number } };
  variable: { name: string; instance?: string };
  attributeType?: string;
};

export function getVariables(data: GetVariableData[], connectors: number) {
  return {
    getVariableResult: data.map(({ component, variable, attributeType }) => {
      const known = V2_VARIABLES.filter((v) => v.component === component.name);
      const match = known.find((v) => v.variable === variable.name);
      const attributeStatus = !known.length
        ? "UnknownComponent"
        : !match
          ? "UnknownVariable"
          : attributeType && attributeType !== "Actual"
            ? "NotSupportedAttributeType"
            : "Accepted";
      return {
        attributeStatus,
        ...(attributeType ? { attributeType } : {}),
        ...(match && attributeStatus === "Accepted"
          ? { attributeValue: match.value(connectors) }
          : {}),
        component,
        variable,
      };
    }),
  };
}

type SetVariableData = {
  component: GetVariableData["component"];
  variable: GetVariableData["variable"];
  attributeType?: string;
};

export function setVariables(data: SetVariableData[]) {
  return {
    setVariableResult: data.map(({ component, variable, attributeType }) => ({
      attributeStatus: "Rejected",
      ...(attributeType ? { attributeType } : {}),
      component,
      variable,
    })),
  };
}

/** OCPP 1.6 configuration keys a virtual charger answers (read-only). */
const V16_KEYS: { key: string; value: (connectors: number) => string }[] = [
  { key: "HeartbeatInterval", value: () => String(HEARTBEAT_INTERVAL_SECONDS) },
  { key: "MeterValueSampleInterval", value: () => "0" },
  { key: "AuthorizeRemoteTxRequests", value: () => "false" },
  { key: "NumberOfConnectors", value: (n) => String(n) },
  {
    key: "MeterValuesSampledData",
    value: () => "Energy.Active.Import.Register,Power.Active.Import,Current.Import,Voltage,SoC",
  },
];

export function getConfiguration(keys: string[] | undefined, connectors: number) {
  const asked = keys?.length ? keys : V16_KEYS.map((k) => k.key);
  const known = asked.flatMap((key) => V16_KEYS.filter((k) => k.key === key));
  const unknownKey = asked.filter((key) => !V16_KEYS.some((k) => k.key === key));
  return {
    configurationKey: known.map((k) => ({
      key: k.key,
      readonly: true,
      value: k.value(connectors),
    })),
    ...(unknownKey.length ? { unknownKey } : {}),
  };
}

export function changeConfiguration(key: string) {
  return { status: V16_KEYS.some((k) => k.key === key) ? "Rejected" : "NotSupported" };
}
