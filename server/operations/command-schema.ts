import { z } from "zod";
import { resourceId } from "../lib/int4";

/** An EVSE of the station, by the `evse_number` its connectors show (OCPP 2.x evseId). */
const evseNumber = z
  .number()
  .int()
  .min(1)
  .max(1000)
  .describe("the EVSE's number, as the station's connectors show it (`evse_number`)");

/** What TriggerMessage may ask a charger to send (1.6 calls the log one DiagnosticsStatusNotification). */
export const TRIGGER_MESSAGES = [
  "StatusNotification",
  "MeterValues",
  "BootNotification",
  "Heartbeat",
  "FirmwareStatusNotification",
  "LogStatusNotification",
] as const;

/** An operator command, as the API takes it (resource IDs, not the station's protocol fields). */
export const commandBody = z.discriminatedUnion("action", [
  z.strictObject({
    action: z.literal("start"),
    connector_id: resourceId,
    token: z.string().min(1).max(36),
    token_type: z
      .enum([
        "Central",
        "eMAID",
        "ISO14443",
        "ISO15693",
        "KeyCode",
        "Local",
        "MacAddress",
        "NoAuthorization",
      ])
      .optional(),
  }),
  z.strictObject({ action: z.literal("stop"), transaction_id: resourceId }),
  z.strictObject({
    action: z.literal("reset"),
    mode: z.enum(["soft", "hard"]),
    evse_number: evseNumber
      .optional()
      .describe("one EVSE (OCPP 2.x `Reset` with `evseId`); absent: the whole station"),
  }),
  z.strictObject({ action: z.literal("unlock"), connector_id: resourceId }),
  z.strictObject({
    action: z.literal("availability"),
    connector_id: resourceId
      .optional()
      .describe("one connector; with neither this nor `evse_number`: the whole station"),
    evse_number: evseNumber.optional().describe("one EVSE (all its connectors)"),
    mode: z.enum(["inoperative", "operative"]),
  }),
  z.strictObject({
    action: z.literal("trigger"),
    message: z
      .enum(TRIGGER_MESSAGES)
      .describe(
        "`LogStatusNotification` is OCPP 1.6 `DiagnosticsStatusNotification`; with `connector_id` or `evse_number`, about that connector or EVSE",
      ),
    connector_id: resourceId.optional(),
    evse_number: evseNumber.optional(),
  }),
]);
export type Command = z.infer<typeof commandBody>;
