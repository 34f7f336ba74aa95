import { z } from "zod";

/** OCPP 2.x component/variable names (identifierString, at most 50). */
const identifier = z
  .string()
  .min(1)
  .max(50)
  .regex(/^[A-Za-z0-9*\-_=:+|@.]+$/, "must be an OCPP identifier");

/** A configuration key: OCPP 1.6 `key` alone, or OCPP 2.x `component` and its variable as `key`. */
export const keyRefSchema = z.strictObject({
  component: identifier
    .optional()
    .describe("OCPP 2.x component (e.g. `OCPPCommCtrlr`); absent for OCPP 1.6"),
  key: identifier.describe("OCPP 1.6 configuration key, or OCPP 2.x variable name"),
});

export const MAX_KEYS_PER_READ = 100;
export const MAX_CHANGES = 20;

export const readConfigurationBody = z.strictObject({
  keys: z
    .array(keyRefSchema)
    .min(1)
    .max(MAX_KEYS_PER_READ)
    .optional()
    .describe(
      "named keys; absent: every key (OCPP 1.6 GetConfiguration without keys; OCPP 2.x GetVariables of the standard variables, `STANDARD_V2_VARIABLES`)",
    ),
});
export type ReadConfigurationInput = z.infer<typeof readConfigurationBody>;

export const changeConfigurationBody = z.strictObject({
  changes: z
    .array(
      keyRefSchema.extend({
        value: z.string().max(500).describe("OCPP 1.6 CiString500; OCPP 2.x attributeValue"),
      }),
    )
    .min(1)
    .max(MAX_CHANGES)
    .describe("OCPP 1.6 changes one key per request (ChangeConfiguration takes one)"),
  confirm_connection_change: z
    .boolean()
    .optional()
    .describe(
      "must be true to change a connection key (WebSocketURL, OCPPID, SecurityProfile, the OCPP 2.x network and SecurityCtrlr variables): a wrong value can lock the charger out",
    ),
  allow_protected: z
    .boolean()
    .optional()
    .meta({ deprecated: true })
    .describe(
      "Deprecated (announced 2026-10-17): accepted and ignored; protected keys need the `stations:admin` scope. Answers carry `Deprecation`, `Sunset` and `Link`.",
    ),
});
export type ChangeConfigurationInput = z.infer<typeof changeConfigurationBody>;

const keyName = {
  component: z.string().nullable().describe("null for OCPP 1.6"),
  key: z.string(),
};

/** One key as a read found it. `value` is null for a secret key (never kept) or an unset one. */
export const configurationKeySchema = z.object({
  ...keyName,
  value: z.string().nullable(),
  readonly: z
    .boolean()
    .nullable()
    .describe("the charger's own flag (OCPP 1.6); null where the protocol does not say (2.x)"),
  secret: z.boolean().describe("the value is a secret and is never shown"),
  status: z
    .string()
    .nullable()
    .describe("OCPP 2.x attributeStatus (`Accepted`, `Rejected`, …); null for OCPP 1.6"),
});

/** The station's last configuration read, as the station record shows it. */
export const stationConfigurationSchema = z
  .object({
    read_at: z.string(),
    operation_id: z.string(),
    keys: z.array(configurationKeySchema),
    unknown_keys: z.array(z.object(keyName)),
  })
  .nullable()
  .describe("the last configuration read from the charger and when; null before the first");
export type StationConfiguration = z.infer<typeof stationConfigurationSchema>;

/**
 * OCPP 2.x has no "every variable" GetVariables: a read without keys asks for these standard
 * variables (OCPP 2.0.1 part 2, appendix 3); name others explicitly.
 */
export const STANDARD_V2_VARIABLES: { component: string; key: string }[] = [
  ["OCPPCommCtrlr", "HeartbeatInterval"],
  ["OCPPCommCtrlr", "NetworkConfigurationPriority"],
  ["OCPPCommCtrlr", "NetworkProfileConnectionAttempts"],
  ["OCPPCommCtrlr", "OfflineThreshold"],
  ["OCPPCommCtrlr", "MessageAttempts"],
  ["OCPPCommCtrlr", "MessageAttemptInterval"],
  ["OCPPCommCtrlr", "ResetRetries"],
  ["OCPPCommCtrlr", "UnlockOnEVSideDisconnect"],
  ["OCPPCommCtrlr", "WebSocketPingInterval"],
  ["SecurityCtrlr", "SecurityProfile"],
  ["SecurityCtrlr", "Identity"],
  ["SecurityCtrlr", "OrganizationName"],
  ["AuthCtrlr", "AuthorizeRemoteStart"],
  ["AuthCtrlr", "LocalAuthorizeOffline"],
  ["AuthCtrlr", "LocalPreAuthorize"],
  ["AuthCtrlr", "OfflineTxForUnknownIdEnabled"],
  ["AuthCacheCtrlr", "Enabled"],
  ["TxCtrlr", "EVConnectionTimeOut"],
  ["TxCtrlr", "StopTxOnEVSideDisconnect"],
  ["TxCtrlr", "TxStartPoint"],
  ["TxCtrlr", "TxStopPoint"],
  ["SampledDataCtrlr", "TxUpdatedMeasurands"],
  ["SampledDataCtrlr", "TxUpdatedInterval"],
  ["AlignedDataCtrlr", "Interval"],
  ["AlignedDataCtrlr", "Measurands"],
  ["DeviceDataCtrlr", "ItemsPerMessage"],
  ["DeviceDataCtrlr", "BytesPerMessage"],
].map(([component, key]) => ({ component: component!, key: key! }));
