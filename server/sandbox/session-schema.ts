import { z } from "zod";
import { BILL_STATUSES } from "../bills/bill-schema";
import { HOLD_MAX_MINOR, HOLD_MIN_MINOR } from "../bills/holds";
import { resourceId } from "../lib/int4";
import { paginationQuery } from "../lib/pagination";
import { OPERATION_STATUSES } from "../operations/operation-schema";
import { PAYMENT_STATUSES } from "../payments/payment-schema";

/**
 * A sandbox session's statuses (server/sandbox/README.md, Statuses): `starting` (the virtual
 * charger is being connected, the simulator hold approved, the bill's start dispatched) →
 * `charging` (its transaction started) → `stopping` (stop asked, or the transaction ended) →
 * `settled` (the bill final, the simulator payment captured, or released for a zero bill) →
 * `refunded`; or `failed` (it could not start: `last_error` says why).
 */
export const SANDBOX_SESSION_STATUSES = [
  "starting",
  "charging",
  "stopping",
  "settled",
  "refunded",
  "failed",
] as const;
export type SandboxSessionStatus = (typeof SANDBOX_SESSION_STATUSES)[number];

export const sandboxSessionIdSchema = z
  .string()
  .regex(/^sbs_[0-9A-Za-z]{1,40}$/, "must be a sandbox session ID");

/** Energy one advance may add, Wh (200 kWh: more than any car takes at once). */
export const MAX_ADVANCE_WH = 200_000;
/** Virtual seconds one advance may add (a day). */
export const MAX_ADVANCE_SECONDS = 86_400;
/**
 * What one session may draw in all, Wh, and how far its virtual clock may run ahead, seconds: a
 * session of 10 virtual hours is normal; 30 days is past any real one (the pricing engine and the
 * gateway take charger timestamps ahead of real time within it).
 */
export const MAX_SESSION_WH = 2_000_000;
export const MAX_SESSION_SECONDS = 30 * 86_400;

export const createSandboxSessionBody = z
  .strictObject({
    station_id: resourceId
      .optional()
      .describe("a sandbox station (GET /v1/locations); default: the first with a free connector"),
    connector_id: resourceId
      .optional()
      .describe(
        "a free connector of the sandbox (of `station_id` when given); default: any free one",
      ),
    tariff_id: resourceId
      .optional()
      .describe("a tariff of the sandbox tenant; default: the sandbox's default tariff"),
    hold_minor: z
      .number()
      .int()
      .min(HOLD_MIN_MINOR)
      .max(HOLD_MAX_MINOR)
      .optional()
      .describe("the simulator hold, US cents ($0.50 to $100); default: the sandbox tenant's"),
  })
  .describe("Every field is optional: `{}` starts a session on a free connector");
export type CreateSandboxSessionInput = z.infer<typeof createSandboxSessionBody>;

export const advanceBody = z.strictObject({
  energy_wh: z
    .number()
    .int()
    .min(1)
    .max(MAX_ADVANCE_WH)
    .describe("the energy the virtual charger delivers now, Wh (an increment)"),
  elapsed_seconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_ADVANCE_SECONDS)
    .optional()
    .describe(
      "virtual seconds the delivery takes; default: what the connector's nominal power needs for it (at least 1)",
    ),
  soc_percent: z
    .number()
    .int()
    .min(0)
    .max(100)
    .optional()
    .describe("the car's state of charge reported with the reading"),
});
export type AdvanceInput = z.infer<typeof advanceBody>;

export const listSandboxSessionsQuery = paginationQuery.extend({
  status: z.enum(SANDBOX_SESSION_STATUSES).optional(),
});

const operationRef = z.object({ id: z.string(), status: z.enum(OPERATION_STATUSES) }).nullable();

export const sandboxSessionSchema = z.object({
  id: z.string().describe("`sbs_…`"),
  tenant_id: z.number().int().describe("the workspace's sandbox tenant"),
  team_id: z.number().int().describe("the workspace"),
  status: z.enum(SANDBOX_SESSION_STATUSES),
  station: z.object({
    id: z.number().int(),
    name: z.string(),
    protocol: z.enum(["ocpp1.6", "ocpp2.0.1"]).describe("what its virtual charger speaks"),
    online: z.boolean().describe("its virtual charger is connected to the gateway"),
  }),
  connector: z.object({
    id: z.number().int(),
    evse_number: z.number().int(),
    connector_number: z.number().int(),
    status: z.string().nullable().describe("the connector's status as the charger reported it"),
  }),
  tariff: z.object({
    id: z.number().int(),
    version: z.number().int(),
    pricing_summary: z.string().describe("the tariff in words"),
  }),
  energy_wh: z
    .number()
    .int()
    .describe("energy delivered as the charger reported it (its register minus the start)"),
  energy_kwh: z.string(),
  target_wh: z.number().int().describe("energy the advances asked for so far"),
  pending_wh: z
    .number()
    .int()
    .describe("energy of advances the virtual charger has not reported yet (0 once it caught up)"),
  elapsed_seconds: z.number().int().describe("virtual seconds the advances moved its clock on"),
  power_kw: z.string().nullable().describe("the last meter sample's power, kW"),
  soc_percent: z.string().nullable().describe("the last meter sample's state of charge"),
  cost: z.object({
    running_minor: z
      .number()
      .int()
      .nullable()
      .describe(
        "the session priced so far by the pricing engine (the bill's total once final); null before it started",
      ),
    currency: z.literal("USD"),
  }),
  transaction_id: z.number().int().nullable().describe("the charger's transaction, once started"),
  bill: z.object({
    id: z.string(),
    status: z.enum(BILL_STATUSES),
    hold_minor: z.number().int(),
    total_minor: z.number().int().nullable().describe("final bills"),
    price_summary: z.string().nullable().describe("final bills: the result in words"),
    cost_breakdown: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe("final bills on complex tariffs: the engine's breakdown"),
  }),
  payment: z
    .object({
      id: z.string(),
      service: z.literal("simulator"),
      status: z.enum(PAYMENT_STATUSES),
      amount_minor: z.number().int().describe("the hold"),
      captured_minor: z.number().int(),
      refunded_minor: z.number().int(),
      checkout_url: z
        .string()
        .nullable()
        .describe("the simulator's hosted checkout page (approved by the sandbox at once)"),
    })
    .nullable(),
  start_operation: operationRef.describe("the bill's `bill.start` operation"),
  stop_operation: operationRef.describe("the stop command (`station.command`, action `stop`)"),
  created_by: z.string().describe("the key or person that started it"),
  created_at: z.string(),
  started_at: z.string().nullable(),
  stopped_at: z.string().nullable(),
  settled_at: z.string().nullable(),
  refunded_at: z.string().nullable(),
  last_error: z
    .object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) })
    .nullable()
    .describe("why the session failed, or the last problem met while it ran"),
});
export type SandboxSessionResource = z.infer<typeof sandboxSessionSchema>;
