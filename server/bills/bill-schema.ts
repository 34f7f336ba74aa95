import { z } from "zod";
import { resourceId, resourceIdQuery } from "../lib/int4";
import { paginationQuery } from "../lib/pagination";
import { HOLD_MAX_MINOR, HOLD_MIN_MINOR } from "./holds";

/**
 * A bill's status, derived from facts and written in the transaction of the fact:
 * `open` → `starting` (its start operation is dispatching, or was accepted and no transaction has
 * appeared yet) → `charging` (a transaction carrying its token started on its connector) → `ended`
 * (that transaction ended) → `final` (amount fixed). A start that is `rejected` puts it back to
 * `open`; one whose outcome is `unknown` leaves it `start_unknown`, which a later transaction with
 * its token still matches. Simulated bills go `open` → `final`. An external session's bill goes
 * `open` → `canceled` when the session is canceled (never started, or its start refused): closed,
 * nothing owed, nothing held, matched by no transaction.
 */
export const BILL_STATUSES = [
  "open",
  "starting",
  "start_unknown",
  "charging",
  "ended",
  "final",
  "canceled",
] as const;
export type BillStatus = (typeof BILL_STATUSES)[number];

/** Why a bill's transaction ended. */
export const STOP_REASONS = ["hold_limit", "operator", "charger"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export const BILL_SOURCES = ["csms", "simulated"] as const;

/** Simulated bills: at most 10 MWh over at most 31 days. */
export const MAX_SIMULATED_ENERGY_WH = 10_000_000;
export const MAX_SIMULATED_SECONDS = 31 * 86_400;
export const DEFAULT_SIMULATED_SECONDS = 3_600;

const reference = z.string().min(1).max(100);
export const billIdSchema = z.string().regex(/^bill_[0-9A-Za-z]{1,40}$/, "must be a bill ID");

export const createBillBody = z.strictObject({
  station_id: resourceId,
  connector_id: resourceId.describe("the connector's resource ID (not its OCPP number)"),
  tariff_id: resourceId.describe("its current version is fixed on the bill"),
  source: z
    .enum(BILL_SOURCES)
    .describe(
      "`csms`: a charger's transaction, started through the bill; `simulated`: finalized with energy_wh",
    ),
  pricing_group: reference
    .optional()
    .describe("a group discount of the tariff's rules (422 when the tariff has none by that name)"),
  merchant_validation: reference
    .optional()
    .describe("a merchant validation code of the tariff's rules (422 when unknown)"),
  hold_minor: z
    .number()
    .int()
    .min(HOLD_MIN_MINOR)
    .max(HOLD_MAX_MINOR)
    .optional()
    .describe(
      "US cents held on the payment; default the project's default_hold_minor (at most the tariff's session cost cap). Not above the cap; for `csms` bills above the project's hold_margin_minor",
    ),
});
export type CreateBillInput = z.infer<typeof createBillBody>;

export const listBillsQuery = z.object({
  limit: paginationQuery.shape.limit,
  after: billIdSchema.optional().describe("a bill ID: the page continues after it (newest first)"),
  status: z.enum(BILL_STATUSES).optional(),
  source: z.enum(BILL_SOURCES).optional(),
  station_id: resourceIdQuery.optional(),
  transaction_id: resourceIdQuery.optional(),
});

export const finalizeBillBody = z.strictObject({
  transaction_id: resourceId
    .optional()
    .describe("`csms` bills: the completed transaction carrying the bill's token"),
  energy_wh: z
    .number()
    .int()
    .min(0)
    .max(MAX_SIMULATED_ENERGY_WH)
    .optional()
    .describe("`simulated` bills: the energy delivered"),
  duration_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_SIMULATED_SECONDS)
    .optional()
    .describe(
      `\`simulated\` bills: charging time from the bill's creation (default ${DEFAULT_SIMULATED_SECONDS})`,
    ),
});
export type FinalizeBillInput = z.infer<typeof finalizeBillBody>;

const cents = z.number().int().describe("US cents");
const discount = z.object({
  reference: z.string().describe("the pricing group or the validation code"),
  percent_off: z.number().nullable(),
  amount_off_minor: z.number().int().nullable(),
  discount_minor: cents,
  remaining_minor: cents,
});

export const adjustmentsSchema = z
  .object({
    before_minor: cents.describe("the priced total incl. VAT"),
    group_discount: discount.nullable(),
    merchant_validation: discount.nullable().describe("applied to what the group discount left"),
    cost_cap: z.object({ cap_minor: cents, reduction_minor: cents }).nullable(),
  })
  .describe("in order: group discount, then merchant validation, then the session cost cap");

export const billSchema = z.object({
  id: z.string(),
  tenant_id: z.number().int(),
  station_id: z.number().int(),
  connector_id: z.number().int(),
  tariff_id: z.number().int(),
  tariff_version: z.number().int().describe("fixed at creation; later tariff edits do not apply"),
  source: z.enum(BILL_SOURCES),
  pricing_group: z.string().nullable(),
  merchant_validation: z.string().nullable(),
  billing_version: z.enum(["energy-v1", "elements-v1"]),
  currency: z.literal("USD"),
  status: z.enum(BILL_STATUSES),
  settlement_owner: z
    .enum(["managed", "external"])
    .describe(
      "`external`: an external charging session owns the settlement (managed payments refuse the bill)",
    ),
  session_id: z.string().nullable().describe("`external` bills: the charging session"),
  hold_minor: cents.describe(
    "fixed at creation; a `canceled` bill holds nothing (its session was canceled before it started)",
  ),
  start_operation_id: z.string().nullable().describe("the latest `bill.start` operation"),
  transaction_id: z.number().int().nullable().describe("the matched transaction"),
  stop_reason: z
    .enum(STOP_REASONS)
    .nullable()
    .describe(
      "why the transaction ended: `hold_limit` (the service stopped it before the running cost reached the hold), `operator` (another remote stop), `charger` (at the charger)",
    ),
  stop_operation_id: z
    .string()
    .nullable()
    .describe(
      "the live cap's latest operation (scope `bill.cap`): its stop, a stop sent again, or ChangeAvailability Inoperative; it calls again until the transaction ends",
    ),
  cap_attempts: z
    .number()
    .int()
    .describe(
      "how many operations the live cap has sent (0 until the running cost reaches hold − margin)",
    ),
  needs_reconciliation: z
    .boolean()
    .describe(
      "true once the running cost passed the hold: capturing it would be refused (`bill_exceeds_hold`); see `bill.cap_exceeded`",
    ),
  reconciliation_reason: z
    .enum(["hold_exceeded"])
    .nullable()
    .describe("`hold_exceeded`: the running cost passed the hold (the stop not confirmed in time)"),
  hold_exceeded_at: z
    .string()
    .nullable()
    .describe("when the running cost was first seen past the hold"),
  running_cost_minor: cents
    .nullable()
    .describe("the session priced so far (with the bill's adjustments), while it charges"),
  running_priced_at: z.string().nullable().describe("the reading the running cost includes up to"),
  energy_wh: z.number().int().nullable().describe("final bills"),
  energy_kwh: z.string().nullable(),
  duration_seconds: z.number().int().nullable().describe("final bills"),
  subtotal_minor: cents.nullable().describe("final bills: the priced total incl. VAT"),
  total_minor: cents
    .nullable()
    .describe("final bills: the final amount after adjustments; immutable"),
  adjustments: adjustmentsSchema.nullable(),
  cost_breakdown: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      "final `elements-v1` bills: the engine's breakdown (dimensions, price_bound, total, activity)",
    ),
  price_summary: z
    .string()
    .nullable()
    .describe(
      "final bills: the pricing engine's result in words (energy, time, activity, totals incl. and excl. VAT, each non-zero dimension excl. VAT), before adjustments",
    ),
  payment: z
    .object({ id: z.string(), service: z.string(), status: z.string() })
    .nullable()
    .describe("the bill's payment, when one was authorized"),
  finalized_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type BillResource = z.infer<typeof billSchema>;
