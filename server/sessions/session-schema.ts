import { z } from "zod";
import { finalizeBillBody } from "../bills/bill-schema";
import { resourceId, resourceIdQuery } from "../lib/int4";
import { paginationQuery } from "../lib/pagination";
import { OPERATION_STATUSES } from "../operations/operation-schema";

/**
 * A session's status, derived from facts (its bill, its start and stop operations, its matched
 * transaction) whenever it is read, and published with `charging_session.status_changed` in the
 * transaction of the fact that moves it (`sync-status.ts`).
 */
export const SESSION_STATUSES = [
  "created",
  "starting",
  "start_unknown",
  "charging",
  "stopping",
  "awaiting_bill",
  "final",
  "canceled",
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const SESSION_SOURCES = ["csms", "simulated"] as const;

/** Why a session needs an operator's look; never resolved by a guess. */
export const RECONCILIATION_REASONS = [
  "start_unknown",
  "stop_unknown",
  "token_elsewhere",
  "second_transaction",
] as const;
export type ReconciliationReason = (typeof RECONCILIATION_REASONS)[number];

export const sessionIdSchema = z.string().regex(/^cs_[0-9A-Za-z]{1,40}$/, "must be a session ID");

const reference = (what: string) =>
  z.string().min(1).max(128).optional().describe(`${what}; a non-secret identifier, 1 to 128`);

export const createSessionBody = z.strictObject({
  station_id: resourceId,
  connector_id: resourceId.describe("the connector's resource ID (not its OCPP number)"),
  tariff_id: resourceId.describe("its current version is fixed on the session's bill"),
  source: z
    .enum(SESSION_SOURCES)
    .describe("`csms`: a charger's transaction; `simulated`: finalized with energy_wh"),
  application_reference: reference("the application's own session or booking reference"),
  processor: reference("the processor the application uses (e.g. `stripe`, `fleet-account`)"),
  merchant_reference: reference("the application's merchant or account reference"),
  payment_reference: reference("the application's payment reference (e.g. its intent id)"),
});
export type CreateSessionInput = z.infer<typeof createSessionBody>;

export const startSessionBody = z.strictObject({
  funding_confirmed: z
    .literal(true)
    .describe("the application confirms it holds the funds; anything else is refused"),
});

export const finalizeSessionBody = finalizeBillBody;

export const listSessionsQuery = z.object({
  limit: paginationQuery.shape.limit,
  after: sessionIdSchema.optional().describe("a session ID: the page continues after it"),
  status: z.enum(SESSION_STATUSES).optional(),
  source: z.enum(SESSION_SOURCES).optional(),
  station_id: resourceIdQuery.optional(),
  connector_id: resourceIdQuery.optional(),
  application_reference: z.string().min(1).max(128).optional(),
  needs_reconciliation: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional(),
});

const cents = z.number().int().describe("US cents");
const operationRef = z.object({ id: z.string(), status: z.enum(OPERATION_STATUSES) }).nullable();

export const usageSchema = z
  .object({
    transaction_id: z
      .number()
      .int()
      .nullable()
      .describe("the matched transaction; on a final session, the bill's"),
    started_at: z.string().nullable(),
    ended_at: z.string().nullable(),
    energy_wh: z.number().int(),
    energy_kwh: z.string(),
    running_cost_minor: cents.nullable().describe("the session priced so far on its tariff"),
    priced_at: z.string().nullable().describe("the reading the running cost includes up to"),
    final: z.boolean().describe("true once the bill is final: this snapshot never changes"),
  })
  .nullable()
  .describe("live while charging (billing:read); fixed at finalization");

export const sessionSchema = z.object({
  id: z.string(),
  tenant_id: z.number().int(),
  station_id: z.number().int(),
  connector_id: z.number().int(),
  tariff_id: z.number().int(),
  tariff_version: z.number().int().describe("snapshotted at creation"),
  source: z.enum(SESSION_SOURCES),
  application_reference: z.string().nullable(),
  processor: z.string().nullable(),
  merchant_reference: z.string().nullable(),
  payment_reference: z.string().nullable(),
  status: z.enum(SESSION_STATUSES),
  funding_confirmed: z
    .boolean()
    .describe(
      "true once a start was sent with `funding_confirmed: true`; false again when that start was refused (start again to confirm)",
    ),
  bill_id: z.string().describe("the session's bill (settlement_owner `external`)"),
  start_operation: operationRef.describe("the `external.start` operation"),
  stop_operation: operationRef.describe("the `external.stop` operation"),
  usage: usageSchema,
  currency: z.literal("USD"),
  total_minor: cents.nullable().describe("fixed at finalization; immutable"),
  captured_minor: cents.describe("succeeded capture reports"),
  refunded_minor: cents.describe("succeeded refund reports"),
  uncollected_minor: cents
    .nullable()
    .describe("total_minor − captured_minor (refunds are voluntary: they do not count)"),
  net_minor: cents.describe("captured_minor − refunded_minor"),
  needs_reconciliation: z.boolean(),
  reconciliation_reasons: z.array(z.enum(RECONCILIATION_REASONS)),
  canceled_at: z.string().nullable(),
  finalized_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SessionResource = z.infer<typeof sessionSchema>;

export const REPORT_KINDS = ["authorization", "capture", "refund", "release"] as const;
export const REPORT_OUTCOMES = ["pending", "unknown", "succeeded", "failed"] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export type ReportOutcome = (typeof REPORT_OUTCOMES)[number];

export const reportBody = z
  .strictObject({
    kind: z.enum(REPORT_KINDS),
    operation_reference: z
      .string()
      .min(1)
      .max(128)
      .describe("the application's stable reference of the money operation"),
    outcome: z.enum(REPORT_OUTCOMES),
    amount_minor: z.number().int().min(0).max(100_000_000).describe("US cents; release uses 0"),
    currency: z.literal("USD"),
  })
  .refine((r) => r.kind !== "release" || r.amount_minor === 0, {
    path: ["amount_minor"],
    message: "a release reports 0",
  });
export type ReportInput = z.infer<typeof reportBody>;

export const reportSchema = z.object({
  id: z.string(),
  session_id: z.string(),
  kind: z.enum(REPORT_KINDS),
  operation_reference: z.string(),
  outcome: z.enum(REPORT_OUTCOMES),
  amount_minor: cents,
  currency: z.literal("USD"),
  actor_id: z.string().describe("the key or person that reported it"),
  received_at: z.string(),
});
export type ReportResource = z.infer<typeof reportSchema>;

export const reportAnswerSchema = z.object({
  report: reportSchema.describe("the report as recorded: on a duplicate, the historical one"),
  duplicate: z
    .boolean()
    .describe("true when this operation and outcome were already reported (nothing recorded)"),
  operation: z
    .object({
      kind: z.enum(REPORT_KINDS),
      operation_reference: z.string(),
      outcome: z.enum(REPORT_OUTCOMES),
      amount_minor: cents,
    })
    .describe("the operation's current state: a terminal outcome never changes"),
  session: sessionSchema,
});
