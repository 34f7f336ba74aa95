import { z } from "zod";
import { resourceId } from "../lib/int4";

const watts = (max: number) => z.number().int().min(0).max(max);
const phases = z
  .number()
  .int()
  .min(1)
  .max(3)
  .describe("1 or 3: how many phases the connector's current is sent for (2 is refused)");

const connectorFields = {
  min_power_w: watts(1_000_000).describe(
    "the least a charging session gets while the minimums fit (W); below it a session is paused (0)",
  ),
  max_power_w: watts(1_000_000).min(1).describe("the most a session on the connector gets (W)"),
  phases,
};

export const putPowerLimitBody = z.strictObject({
  max_power_w: z
    .number()
    .int()
    .min(1)
    .max(100_000_000)
    .describe("the location's limit (W), shared by the sessions charging under it"),
  station_ids: z
    .array(resourceId)
    .min(1)
    .max(1000)
    .optional()
    .describe(
      "the stations it covers (a group of the location's stations); absent: every station of the location, including ones added later",
    ),
  voltage_v: z
    .number()
    .int()
    .min(100)
    .max(1000)
    .default(230)
    .describe("the nominal voltage per phase: A = W / (voltage × phases)"),
  connector_defaults: z
    .strictObject({
      min_power_w: connectorFields.min_power_w.default(0),
      max_power_w: connectorFields.max_power_w.default(22_080),
      phases: phases.default(3),
    })
    .default({ min_power_w: 0, max_power_w: 22_080, phases: 3 })
    .describe("every covered connector's minimum, maximum and phases unless overridden"),
  connector_overrides: z
    .array(
      z.strictObject({
        connector_id: resourceId.describe("the connector's ID as its station shows it"),
        min_power_w: connectorFields.min_power_w.optional(),
        max_power_w: connectorFields.max_power_w.optional(),
        phases: phases.optional(),
      }),
    )
    .max(2000)
    .default([])
    .describe("per-connector values, each replacing the default it names"),
  tolerance_band: z
    .strictObject({
      min_current_a: z
        .number()
        .min(0)
        .max(32)
        .multipleOf(0.1)
        .default(1)
        .describe("the band's floor, A per phase (default 1)"),
      percent: z
        .number()
        .int()
        .min(0)
        .max(50)
        .default(10)
        .describe("the band as a percentage of the fair share (default 10)"),
    })
    .default({ min_current_a: 1, percent: 10 })
    .describe(
      "a session keeps the share it holds while that is within the larger of these of its fair share (fewer profiles sent per change; up to a band's worth per session may stay unused); 0 and 0: every fair share is sent",
    ),
});
export type PutPowerLimitInput = z.output<typeof putPowerLimitBody>;
export type ConnectorOverride = PutPowerLimitInput["connector_overrides"][number];

export const profileStateSchema = z
  .enum(["pending", "installed", "rejected", "unknown"])
  .nullable()
  .describe(
    "the charger's answer to the last share sent for this transaction (null: none sent yet)",
  );

export const allocationSchema = z.object({
  station_id: z.number().int(),
  station_name: z.string(),
  connector_id: z.number().int(),
  transaction_id: z.number().int(),
  min_power_w: z.number().int(),
  max_power_w: z.number().int(),
  phases: z.number().int(),
  allocated_w: z
    .number()
    .int()
    .describe(
      "the session's share (W), after rounding down to 0.1 A: kept while within the tolerance band (`tolerance_band`) of its fair share",
    ),
  allocated_current_a: z.number().describe("the share sent: A per phase, a multiple of 0.1"),
  draw_w: z.number().int().nullable().describe("the latest measured draw (W)"),
  profile_state: profileStateSchema,
  held_back_w: z
    .number()
    .int()
    .describe(
      "counted against the limit beyond the share: a charger that rejected its profile, or has not confirmed one yet, counts at its maximum",
    ),
  updated_at: z.string(),
});

export const powerLimitSchema = z.object({
  location_id: z.number().int(),
  max_power_w: z.number().int(),
  station_ids: z.array(z.number().int()).nullable(),
  voltage_v: z.number().int(),
  connector_defaults: z.object({
    min_power_w: z.number().int(),
    max_power_w: z.number().int(),
    phases: z.number().int(),
  }),
  connector_overrides: z.array(
    z.object({
      connector_id: z.number().int(),
      min_power_w: z.number().int().optional(),
      max_power_w: z.number().int().optional(),
      phases: z.number().int().optional(),
    }),
  ),
  tolerance_band: z.object({ min_current_a: z.number(), percent: z.number().int() }),
  live_power_w: z
    .number()
    .int()
    .describe("the latest measured draw of the covered sessions, summed (W)"),
  allocated_w: z
    .number()
    .int()
    .describe(
      "what is counted against the limit: every share plus what is held back (never above max_power_w, unless chargers draw without a confirmed profile)",
    ),
  allocations: z.array(allocationSchema),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PowerLimitResource = z.infer<typeof powerLimitSchema>;
