import { z } from "zod";
import { billIdSchema } from "../bills/bill-schema";
import { paginationQuery } from "../lib/pagination";

/**
 * A payment's status (design: billing-design.md, "Statuses"):
 * `pending` (authorization created; the payer has not placed a full hold yet) → `authorized`
 * (the processor confirmed a hold of exactly amount_minor, by webhook or by a read) →
 * `capturing` → `captured` (captured_minor = the final bill) → `refunding` → `refunded`.
 * Also `releasing` → `released` (an unused hold, or a zero final bill), `failed` (the
 * authorization was refused, or its checkout expired or was abandoned) and `expired` (the hold
 * lapsed before capture). States only move forward, but for one case: a refund the processor
 * fails after taking it puts a `refunded` payment back to `captured` (flagged `refund_failed`).
 */
export const PAYMENT_STATUSES = [
  "pending",
  "authorized",
  "capturing",
  "captured",
  "releasing",
  "released",
  "refunding",
  "refunded",
  "failed",
  "expired",
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_SERVICES = ["card", "simulator"] as const;
export const ATTEMPT_KINDS = ["authorize", "capture", "release", "refund", "read"] as const;
export type AttemptKind = (typeof ATTEMPT_KINDS)[number];
export const ATTEMPT_STATUSES = ["pending", "succeeded", "failed", "unknown"] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

export const paymentIdSchema = z.string().regex(/^pay_[0-9A-Za-z]{1,40}$/, "must be a payment ID");

export const returnUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe("where the payer is sent after the hosted checkout (http or https)");

export const authorizePaymentBody = z.strictObject({
  bill_id: billIdSchema,
  service: z
    .enum(PAYMENT_SERVICES)
    .describe("`card`: Stripe Connect on the project's connected account; `simulator`: built in"),
  return_url: returnUrlSchema.optional(),
});
export type AuthorizePaymentInput = z.infer<typeof authorizePaymentBody>;

export const listPaymentsQuery = z.object({
  limit: paginationQuery.shape.limit,
  after: paymentIdSchema
    .optional()
    .describe("a payment ID: the page continues after it (newest first)"),
  status: z.enum(PAYMENT_STATUSES).optional(),
  service: z.enum(PAYMENT_SERVICES).optional(),
  bill_id: billIdSchema.optional(),
});

const cents = z.number().int().describe("US cents");

export const nextActionSchema = z
  .discriminatedUnion("type", [
    z.object({
      type: z.literal("redirect"),
      url: z.string().describe("the hosted checkout page the payer completes"),
    }),
    z.object({
      type: z.literal("reconcile"),
      reason: z
        .literal("incomplete_authorization")
        .describe(
          "the processor holds less than the full amount, or the authorization's outcome is unknown",
        ),
    }),
  ])
  .nullable()
  .describe("what must happen next for a `pending` payment; null otherwise");

export const attemptSchema = z.object({
  id: z.string().describe("also the processor idempotency key of the call"),
  kind: z.enum(ATTEMPT_KINDS),
  status: z
    .enum(ATTEMPT_STATUSES)
    .describe("`unknown`: the outcome is uncertain; it is asked again with the same key"),
  amount_minor: cents.nullable(),
  error: z
    .object({ kind: z.string(), code: z.string().nullable(), message: z.string() })
    .nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});

export const paymentSchema = z.object({
  id: z.string(),
  tenant_id: z.number().int(),
  bill_id: z.string(),
  service: z.enum(PAYMENT_SERVICES),
  status: z.enum(PAYMENT_STATUSES),
  currency: z.literal("USD"),
  amount_minor: cents.describe("the hold: the bill's hold_minor"),
  captured_minor: cents,
  refunded_minor: cents,
  next_action: nextActionSchema,
  return_url: z.string().nullable(),
  needs_reconciliation: z
    .boolean()
    .describe("an operator must reconcile it with the processor (see reconciliation_reason)"),
  reconciliation_reason: z
    .string()
    .nullable()
    .describe(
      "`incomplete_authorization`, `unknown_outcome_23h`, `refund_failed` (the processor failed the refund after taking it: the payment is `captured` again)",
    ),
  authorized_at: z.string().nullable(),
  captured_at: z.string().nullable(),
  released_at: z.string().nullable(),
  refunded_at: z.string().nullable(),
  expires_at: z.string().nullable().describe("when the authorized hold lapses"),
  attempts: z.array(attemptSchema).describe("the journal of processor calls, oldest first"),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PaymentResource = z.infer<typeof paymentSchema>;

export const paymentServicesSchema = z.object({
  data: z.array(
    z.object({
      service: z.enum(PAYMENT_SERVICES),
      available: z.boolean(),
      reason: z.string().nullable().describe("why the service cannot be used now"),
    }),
  ),
});
