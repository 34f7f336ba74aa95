import { z } from "zod";

export const planSchema = z.object({
  id: z.literal("standard"),
  name: z.string(),
  currency: z.literal("usd"),
  included_active_chargers: z.number().int().describe("active chargers free every month"),
  price_per_active_charger_minor: z
    .number()
    .int()
    .describe("US cents per active charger per month beyond the free ones"),
  included_projects: z.number().int().describe("projects without a billing method on file"),
  max_projects: z.number().int().describe("projects with a billing method on file"),
});

const cardSchema = z.object({
  id: z.string().describe("the PaymentMethod at Stripe (pm_…)"),
  brand: z.string(),
  last4: z.string(),
  exp_month: z.number().int(),
  exp_year: z.number().int(),
});
const bankSchema = z.object({
  id: z.string().describe("the PaymentMethod at Stripe (pm_…)"),
  bank_name: z.string(),
  last4: z.string(),
  account_type: z.string(),
});

export const callSchema = z.object({
  id: z.string().describe("Stripe's Idempotency-Key for this call"),
  kind: z.enum(["setup_session", "set_default", "detach", "sync_subscription", "meter_event"]),
  status: z.enum(["pending", "succeeded", "failed", "unknown"]),
  error: z.object({ kind: z.string(), message: z.string() }).nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});

export const billingProfileSchema = z.object({
  team_id: z.number().int(),
  enabled: z
    .boolean()
    .describe("false when the service runs without team billing: then nothing is limited by it"),
  plan: planSchema,
  status: z.enum(["active", "past_due", "suspended"]),
  past_due_since: z.string().nullable(),
  suspended_at: z.string().nullable(),
  grace_days: z.number().int().nullable(),
  invoicing_mode: z.enum(["automatic", "send_invoice"]),
  card: cardSchema.nullable(),
  bank_account: bankSchema.nullable(),
  default_method: z.enum(["card", "bank_account"]).nullable(),
  pending_setups: z.object({ card: z.boolean(), bank_account: z.boolean() }),
  project_limit: z.number().int(),
  what_to_do: z.string().nullable(),
  calls: z.array(callSchema).describe("the latest calls to Stripe about this team, newest first"),
});
export type BillingProfile = z.infer<typeof billingProfileSchema>;

export const setupStartedSchema = z.object({
  billing: billingProfileSchema,
  setup: z.object({
    kind: z.enum(["card", "bank_account"]),
    url: z.string().describe("Stripe's hosted page; send the person there"),
    expires_at: z.string(),
  }),
});

export const setupSyncedSchema = z.object({
  billing: billingProfileSchema,
  setup: z.object({
    kind: z.enum(["card", "bank_account"]),
    status: z.enum(["saved", "open", "declined", "verification_pending", "expired", "none"]),
    error: z
      .object({
        code: z.string().nullable(),
        decline_code: z.string().nullable(),
        message: z.string(),
      })
      .nullable(),
  }),
});

export const invoiceSchema = z.object({
  id: z.string(),
  number: z.string().nullable(),
  status: z.enum(["draft", "open", "paid", "void", "uncollectible"]),
  amount_due_minor: z.number().int(),
  amount_paid_minor: z.number().int(),
  currency: z.string(),
  hosted_url: z.string().nullable(),
  pdf_url: z.string().nullable(),
  period_start: z.string().nullable(),
  period_end: z.string().nullable(),
  due_at: z.string().nullable(),
  overdue_since: z.string().nullable(),
  created_at: z.string(),
});

export const usageSchema = z.object({
  month: z.string().describe("YYYY-MM (UTC)"),
  active_chargers: z.number().int(),
  charging_sessions: z.number().int(),
  energy_wh: z.number().int(),
  energy_kwh: z.string(),
  api_requests: z
    .number()
    .int()
    .describe(
      "/v1 requests answered for the team's projects that month (UTC days; the sandbox's not included): every answer to a project's key or to a member's token on a project's route, 4xx included, except 429 and 5xx; unauthenticated requests (401) belong to no project. Written every few seconds, so the last seconds may not show yet. Shown, not priced.",
    ),
  billable_active_chargers: z.number().int(),
  reported_active_chargers: z
    .number()
    .int()
    .describe("sent to Stripe's meter so far (the sum of the month's meter events)"),
  estimated_minor: z.number().int(),
  computed_at: z.string(),
});

export const invoicingBody = z.object({ mode: z.enum(["automatic", "send_invoice"]) }).strict();
