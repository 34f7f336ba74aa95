/**
 * The payment processor layer: what the payments service asks of a processor, whichever it is.
 * Two implement it: `card` (Stripe Connect, direct charges on the tenant's connected account:
 * stripe.ts) and `simulator` (the product's own processor over its database: simulator.ts).
 *
 * Invariants every implementation keeps:
 * - Every call that changes money carries the caller's `idempotencyKey` (the payment attempt's
 *   id). The same key with the same request replays the first outcome and changes nothing twice;
 *   the same key with a different request is refused with code `idempotency_error`, which is
 *   `uncertain`: a request under that key reached the processor before, and what it did is known
 *   only by reading the object. Keys are scoped per merchant account.
 * - Objects live in one merchant account: naming them from another is `not_found`.
 * - Amounts are integer minor units of USD; `amountMinor` is always what the processor itself
 *   says, never echoed from the request.
 * - A call either resolves with the processor's own answer, or throws a `ProcessorError` whose
 *   `kind` says what the caller may conclude (see `ProcessorErrorKind`).
 */

export type PaymentServiceName = "card" | "simulator";

/**
 * Whose money: the tenant, and for `card` the Stripe connected account (`acct_…`) the charge is
 * made on (the Stripe-Account header). The simulator scopes by tenant and takes `accountRef: null`.
 */
export type MerchantAccount = { tenantId: number; accountRef: string | null };

export type CheckoutStatus = "open" | "complete" | "expired";

/** Stripe's PaymentIntent statuses; the simulator uses the subset a card checkout reaches. */
export type IntentStatus =
  | "requires_payment_method"
  | "requires_confirmation"
  | "requires_action"
  | "processing"
  | "requires_capture"
  | "canceled"
  | "succeeded";

export type CardError = {
  /** e.g. `card_declined`, `expired_card`, `incorrect_cvc` */
  code: string;
  /** the issuer's reason for a `card_declined`, e.g. `insufficient_funds`; null otherwise */
  declineCode: string | null;
  message: string;
};

export type CreateCheckoutInput = {
  idempotencyKey: string;
  account: MerchantAccount;
  /** the hold: authorized in full, captured later (manual capture) */
  amountMinor: number;
  currency: "usd";
  /** shown to the payer on the hosted page */
  description: string;
  /** stored on the checkout and its intent (e.g. payment_id, bill_id); string values only */
  metadata: Record<string, string>;
  successUrl: string;
  cancelUrl: string;
};

export type Checkout = {
  checkoutRef: string;
  /** the hosted page the payer is sent to (`next_action.url`) */
  checkoutUrl: string;
  /** null until the payer has tried to pay (Stripe creates the PaymentIntent then) */
  intentRef: string | null;
  /** the page stops taking payment after this */
  expiresAt: Date;
};

export type CheckoutState = {
  checkoutRef: string;
  /** `complete` means the payer finished the page: read the intent for what it holds */
  status: CheckoutStatus;
  /** Stripe names the intent once the payer has tried to pay; the simulator from the start */
  intentRef: string | null;
};

export type IntentState = {
  intentRef: string;
  status: IntentStatus;
  currency: string;
  amountMinor: number;
  /** what may still be captured: the hold, while `requires_capture` */
  amountCapturableMinor: number;
  /** what was captured */
  amountReceivedMinor: number;
  /**
   * refunded out of amountReceivedMinor. Meaningful after a capture only: Stripe may report a
   * released (canceled) hold as refunded on its charge.
   */
  amountRefundedMinor: number;
  /** why a `canceled` intent was canceled; `automatic` is a hold that lapsed uncaptured */
  canceledReason: string | null;
  /** the payer's last failed attempt (a decline), while the intent waits for another */
  lastError: CardError | null;
  /**
   * The processor's own deadline for capturing the hold, when it gives one (Stripe: the charge's
   * `payment_method_details.card.capture_before`; the simulator: its hold's lapse); null when it
   * does not say. The hold lapses then.
   */
  captureBefore: Date | null;
};

export type CaptureInput = {
  idempotencyKey: string;
  account: MerchantAccount;
  intentRef: string;
  /** at most amountCapturableMinor; the rest of the hold is released */
  amountMinor: number;
};

export type CancelInput = { idempotencyKey: string; account: MerchantAccount; intentRef: string };

export type RefundInput = {
  idempotencyKey: string;
  account: MerchantAccount;
  intentRef: string;
  amountMinor: number;
};

export type RefundStatus = "pending" | "requires_action" | "succeeded" | "failed" | "canceled";

export type Refund = {
  refundRef: string;
  status: RefundStatus;
  amountMinor: number;
  /** the intent it refunds */
  intentRef?: string | null;
  /** why a `failed` refund failed (Stripe's `failure_reason`), when it says */
  failureReason?: string | null;
};

export type Availability = { available: true } | { available: false; reason: string };

export interface PaymentProcessor {
  readonly service: PaymentServiceName;
  /** whether calls can be made at all (configuration), and why not */
  availability(): Availability;
  /** a hosted checkout that authorizes `amountMinor` with manual capture */
  createCheckout(input: CreateCheckoutInput): Promise<Checkout>;
  readCheckout(checkoutRef: string, account: MerchantAccount): Promise<CheckoutState>;
  readIntent(intentRef: string, account: MerchantAccount): Promise<IntentState>;
  /** captures `amountMinor` of a `requires_capture` intent; answers the intent after it */
  capture(input: CaptureInput): Promise<IntentState>;
  /** releases the hold (or abandons an unpaid intent); answers the intent after it */
  cancel(input: CancelInput): Promise<IntentState>;
  refund(input: RefundInput): Promise<Refund>;
}

/** Stripe Connect accounts: the tenant's own Stripe account that charges are made on. */
export interface ConnectAccounts {
  /** a Standard account, under the caller's idempotency key; answers its state as created */
  createAccount(input: {
    idempotencyKey: string;
    email?: string;
    /** ISO 3166-1 alpha-2, e.g. `US` */
    country: string;
  }): Promise<AccountState>;
  /** Stripe's hosted onboarding; the link is single-use and short-lived: make one per visit */
  onboardingLink(input: {
    accountRef: string;
    refreshUrl: string;
    returnUrl: string;
  }): Promise<{ url: string; expiresAt: Date }>;
  readAccount(accountRef: string): Promise<AccountState>;
  /**
   * Ends the platform's access to the account (Connect OAuth deauthorize with the platform's
   * client id). `unavailable` when no client id is configured; a definitive OAuth refusal (the
   * account is not connected to this application through OAuth, or no longer) is `invalid`.
   */
  deauthorize(input: { idempotencyKey: string; accountRef: string }): Promise<void>;
}

export type AccountState = {
  accountRef: string;
  chargesEnabled: boolean;
  detailsSubmitted: boolean;
  /** what Stripe needs before charges are (or stay) enabled: currently or past due */
  requirementsDue: string[];
};

/** Webhook event types the payments service acts on; others verify but are `ignored`. */
export const PROCESSOR_EVENT_TYPES = [
  "checkout.session.completed",
  "checkout.session.expired",
  "payment_intent.amount_capturable_updated",
  "payment_intent.canceled",
  "payment_intent.payment_failed",
  "payment_intent.succeeded",
  "charge.refunded",
  /** a refund's status changed (Stripe sends this when a refund fails after it succeeded) */
  "charge.refund.updated",
  "refund.failed",
  "account.updated",
  /** the platform's access to a connected account was revoked */
  "account.application.deauthorized",
] as const;
export type ProcessorEventType = (typeof PROCESSOR_EVENT_TYPES)[number];

/**
 * A verified event: a hint that an object changed, never the new state itself. The payments
 * service deduplicates on `id` and reads the object again before acting on it.
 */
export type ProcessorEvent = {
  id: string;
  type: ProcessorEventType;
  /** the connected account it happened on (Connect events); null for the platform's own */
  account: string | null;
  /** the event's object: a Checkout Session, PaymentIntent, Charge or Account id */
  objectId: string;
  /** the checkout and intent it concerns, where the object names them */
  checkoutRef: string | null;
  intentRef: string | null;
  /** the refund it concerns (`re_…`), for refund events */
  refundRef: string | null;
  created: Date;
};

export type ParsedWebhook =
  | { kind: "event"; event: ProcessorEvent }
  /** genuine, but of a type nobody acts on: acknowledge it */
  | { kind: "ignored"; id: string; type: string }
  /** not proven to come from Stripe (signature, secret, age, shape): answer 400, act on nothing */
  | { kind: "refused"; reason: string };

export interface WebhookVerifier {
  parseWebhook(rawBody: string | Buffer, signatureHeader: string | null): ParsedWebhook;
}

/**
 * What a failed call lets the caller conclude:
 * - `declined`: the card issuer or processor refused; nothing happened (definitive).
 * - `invalid`: our request was wrong (state, amount, parameters, a reused key); nothing happened.
 * - `not_found`: no such object in that account (or no such account); nothing happened.
 * - `uncertain`: the outcome is unknown (network error, timeout, reset, 5xx, 409 idempotent
 *   request in progress, a key already used with other parameters, rate limit): it may have
 *   happened. Reconcile by calling again with the
 *   SAME idempotency key, or by reading the object; never with a new key. Stripe stores the
 *   first result of a request that began executing, a 500 included, and replays it for that key:
 *   when asking again keeps answering `uncertain`, read the object, and only a read showing the
 *   change did not happen allows a new attempt (with a new key).
 * - `unavailable`: the processor is not configured (or refuses the platform's credentials);
 *   nothing was sent or nothing happened.
 */
export type ProcessorErrorKind = "declined" | "invalid" | "not_found" | "uncertain" | "unavailable";

export class ProcessorError extends Error {
  readonly kind: ProcessorErrorKind;
  /** the processor's code (e.g. `resource_missing`, `payment_intent_unexpected_state`) */
  readonly code: string | null;
  /** for `declined`: the issuer's decline code */
  readonly declineCode: string | null;
  /** the processor's HTTP status, when it answered */
  readonly httpStatus: number | null;

  constructor(
    kind: ProcessorErrorKind,
    message: string,
    details: { code?: string | null; declineCode?: string | null; httpStatus?: number | null } = {},
  ) {
    super(message);
    this.name = "ProcessorError";
    this.kind = kind;
    this.code = details.code ?? null;
    this.declineCode = details.declineCode ?? null;
    this.httpStatus = details.httpStatus ?? null;
  }

  /** a plain record for the payment attempt's journal */
  toJSON() {
    return {
      kind: this.kind,
      code: this.code,
      decline_code: this.declineCode,
      http_status: this.httpStatus,
      message: this.message,
    };
  }
}

export function isProcessorError(
  error: unknown,
  kind?: ProcessorErrorKind,
): error is ProcessorError {
  return error instanceof ProcessorError && (kind === undefined || error.kind === kind);
}
