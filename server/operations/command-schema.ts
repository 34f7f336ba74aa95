import { z } from "zod";
import { resourceId } from "../lib/int4";

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
  z.strictObject({ action: z.literal("reset"), mode: z.enum(["soft", "hard"]) }),
  z.strictObject({ action: z.literal("unlock"), connector_id: resourceId }),
  z.strictObject({
    action: z.literal("availability"),
    connector_id: resourceId,
    mode: z.enum(["inoperative", "operative"]),
  }),
]);
export type Command = z.infer<typeof commandBody>;
