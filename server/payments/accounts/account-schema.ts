import { z } from "zod";

/**
 * A tenant's payment account, as the service stores it:
 * - `onboarding`: connected, the owner has not finished Stripe's onboarding;
 * - `active`: Stripe enables charges on it (card payments can be taken);
 * - `restricted`: details were submitted but Stripe does not (or no longer) enable charges;
 * - `access_revoked`: Stripe says the platform cannot reach it any more (its owner removed the
 *   platform, `account.application.deauthorized`, or a read was refused): no charges on it;
 * - `disconnected`: a person disconnected it; the row stays as the record of who and when.
 * `not_connected` is only ever answered (no row: never connected).
 */
export const STORED_ACCOUNT_STATUSES = [
  "onboarding",
  "active",
  "restricted",
  "access_revoked",
  "disconnected",
] as const;
export type StoredAccountStatus = (typeof STORED_ACCOUNT_STATUSES)[number];
export const ACCOUNT_STATUSES = ["not_connected", ...STORED_ACCOUNT_STATUSES] as const;

export const connectPaymentAccountBody = z.strictObject({
  account_ref: z
    .string()
    .regex(/^acct_[A-Za-z0-9]{1,100}$/, "must be a Stripe account ID (acct_…)")
    .optional()
    .describe(
      "link this existing Stripe account (one the platform can reach) instead of creating one",
    ),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 country code, e.g. US")
    .optional()
    .describe("for a new account: where the business is (default `US`)"),
});
export type ConnectPaymentAccountInput = z.infer<typeof connectPaymentAccountBody>;

const at = z.string().nullable();

export const ACCOUNT_ATTEMPT_KINDS = ["create", "deauthorize"] as const;
export const ACCOUNT_ATTEMPT_STATUSES = [
  "pending",
  "succeeded",
  "failed",
  "unknown",
  "abandoned",
] as const;

/** One Stripe call of the account's journal (`payment_account_attempts`). */
export const accountAttemptSchema = z.object({
  id: z.string().describe("also the Stripe idempotency key of the call"),
  kind: z
    .enum(ACCOUNT_ATTEMPT_KINDS)
    .describe(
      "`create`: a new connected account; `deauthorize`: the platform's access ended when it was disconnected",
    ),
  status: z
    .enum(ACCOUNT_ATTEMPT_STATUSES)
    .describe(
      "`pending`: not answered yet (a `deauthorize` also waits here while payments on the account are open); `unknown`: the outcome is uncertain and it is asked again with the same key; `abandoned`: a creation Stripe never answered within 23 hours, no longer asked (Stripe forgets a key after 24 hours)",
    ),
  account_ref: z.string().nullable(),
  error: z
    .object({ kind: z.string(), code: z.string().nullable(), message: z.string() })
    .nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});
export type AccountAttemptResource = z.infer<typeof accountAttemptSchema>;

export const paymentAccountSchema = z.object({
  tenant_id: z.number().int(),
  provider: z.literal("stripe"),
  status: z.enum(ACCOUNT_STATUSES),
  account_ref: z.string().nullable().describe("the Stripe connected account (acct_…)"),
  charges_enabled: z
    .boolean()
    .describe("Stripe enables charges on it: card payments need this and status `active`"),
  details_submitted: z.boolean().describe("the owner finished Stripe's onboarding form"),
  requirements_due: z
    .array(z.string())
    .describe("what Stripe needs now (currently or past due), in Stripe's field names"),
  connected_by_user_id: z.number().int().nullable(),
  connected_at: at,
  disconnected_at: at,
  updated_at: at.describe("when the service last stored Stripe's state"),
  attempts: z
    .array(accountAttemptSchema)
    .describe("the journal of Stripe calls about the project's account, newest first (at most 10)"),
});
export type PaymentAccountResource = z.infer<typeof paymentAccountSchema>;

export const connectedPaymentAccountSchema = z.object({
  payment_account: paymentAccountSchema,
  onboarding: z
    .object({
      url: z.string().describe("Stripe's hosted onboarding: send the person there"),
      expires_at: z.string().describe("single-use and short-lived: ask again for a new one"),
    })
    .describe("an Account Link of type `account_onboarding`"),
});
