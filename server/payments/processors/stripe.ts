import Stripe from "stripe";
import { classifyStripeError } from "./stripe-errors";
import { parseStripeWebhook } from "./stripe-webhooks";
import {
  ProcessorError,
  type AccountState,
  type CardError,
  type CheckoutStatus,
  type ConnectAccounts,
  type IntentState,
  type IntentStatus,
  type MerchantAccount,
  type PaymentProcessor,
  type Refund,
  type RefundStatus,
  type WebhookVerifier,
} from "./types";

/**
 * The live `card` processor: Stripe Connect with direct charges. Every object (Checkout Session,
 * PaymentIntent, refund) is created and acted on in the tenant's connected account (the SDK's
 * `stripeAccount` option, the Stripe-Account header); money lands there, not on the platform.
 * Authorization is a hosted Checkout Session in `payment` mode whose PaymentIntent uses manual
 * capture, so the card is held for the bill's hold and captured once the bill is final.
 *
 * The SDK never retries (`maxNetworkRetries: 0`): the payments journal decides when to ask again,
 * always with the attempt's own idempotency key.
 */
export type StripeSettings = {
  secretKey: string | null;
  connectWebhookSecret: string | null;
  /** the platform's Connect application (`ca_…`), for OAuth deauthorize; null: not configured */
  connectClientId?: string | null;
  /** a local server speaking Stripe's API (tests); null is Stripe itself */
  apiUrl: string | null;
  /** per request; an answer not heard by then is `uncertain` */
  timeoutMs?: number;
};

export type StripeProcessor = PaymentProcessor &
  ConnectAccounts &
  WebhookVerifier & {
    /** a refund as Stripe shows it now (refunds may fail after they succeeded) */
    readRefund(refundRef: string, account: MerchantAccount): Promise<Refund>;
  };

/** How long one request to Stripe may take before its outcome counts as unknown. */
export const STRIPE_CALL_TIMEOUT_MS = 20_000;
/**
 * The longest one SDK call can take: its timeout, and once more after a reset connection (the SDK
 * resends a closed connection's request once, with the same key, even with retries off), with the
 * SDK's pause between them. What a job that calls Stripe derives its lease from.
 */
export const STRIPE_CALL_BUDGET_MS = 2 * STRIPE_CALL_TIMEOUT_MS + 2_000;
const CHECKOUT_STATUSES: readonly CheckoutStatus[] = ["open", "complete", "expired"];
const INTENT_STATUSES: readonly string[] = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "requires_capture",
  "canceled",
  "succeeded",
] satisfies IntentStatus[];
const REFUND_STATUSES: readonly string[] = [
  "pending",
  "requires_action",
  "succeeded",
  "failed",
  "canceled",
] satisfies RefundStatus[];
// The intent's refunded amount lives on its charge; every call that answers an intent expands it.
const EXPAND_CHARGE = ["latest_charge"];

export function createStripeProcessor(settings: StripeSettings): StripeProcessor {
  const client = settings.secretKey
    ? new Stripe(settings.secretKey, sdkConfig(settings.apiUrl, settings.timeoutMs))
    : null;

  async function call<T>(fn: (stripe: Stripe) => Promise<T>): Promise<T> {
    if (!client) {
      throw new ProcessorError(
        "unavailable",
        "card payments are not configured: STRIPE_SECRET_KEY is not set",
      );
    }
    try {
      return await fn(client);
    } catch (error) {
      throw classifyStripeError(error);
    }
  }

  return {
    service: "card",

    availability: () =>
      client
        ? { available: true }
        : { available: false, reason: "STRIPE_SECRET_KEY is not set: card payments are off" },

    async createCheckout(input) {
      const session = await call((stripe) =>
        stripe.checkout.sessions.create(
          {
            mode: "payment",
            allowed_payment_method_types: ["card"],
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: input.currency,
                  unit_amount: input.amountMinor,
                  product_data: { name: input.description },
                },
              },
            ],
            payment_intent_data: {
              capture_method: "manual",
              description: input.description,
              metadata: input.metadata,
            },
            metadata: input.metadata,
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
          },
          { stripeAccount: connected(input.account), idempotencyKey: input.idempotencyKey },
        ),
      );
      if (!session.url) {
        throw new ProcessorError("invalid", `Checkout Session ${session.id} has no hosted URL`);
      }
      return {
        checkoutRef: session.id,
        checkoutUrl: session.url,
        intentRef: refOf(session.payment_intent),
        expiresAt: new Date(session.expires_at * 1000),
      };
    },

    async readCheckout(checkoutRef, account) {
      const session = await call((stripe) =>
        stripe.checkout.sessions.retrieve(checkoutRef, {}, { stripeAccount: connected(account) }),
      );
      const status = CHECKOUT_STATUSES.find((known) => known === session.status);
      if (!status) {
        throw new ProcessorError(
          "uncertain",
          `Checkout Session status "${session.status}" is not known`,
        );
      }
      return { checkoutRef: session.id, status, intentRef: refOf(session.payment_intent) };
    },

    async readIntent(intentRef, account) {
      const intent = await call((stripe) =>
        stripe.paymentIntents.retrieve(
          intentRef,
          { expand: EXPAND_CHARGE },
          { stripeAccount: connected(account) },
        ),
      );
      return intentState(intent);
    },

    async capture(input) {
      const intent = await call((stripe) =>
        stripe.paymentIntents.capture(
          input.intentRef,
          { amount_to_capture: input.amountMinor, expand: EXPAND_CHARGE },
          { stripeAccount: connected(input.account), idempotencyKey: input.idempotencyKey },
        ),
      );
      return intentState(intent);
    },

    async cancel(input) {
      const intent = await call((stripe) =>
        stripe.paymentIntents.cancel(
          input.intentRef,
          { expand: EXPAND_CHARGE },
          { stripeAccount: connected(input.account), idempotencyKey: input.idempotencyKey },
        ),
      );
      return intentState(intent);
    },

    async refund(input) {
      const refund = await call((stripe) =>
        stripe.refunds.create(
          { payment_intent: input.intentRef, amount: input.amountMinor },
          { stripeAccount: connected(input.account), idempotencyKey: input.idempotencyKey },
        ),
      );
      return refundOf(refund);
    },

    async readRefund(refundRef, account) {
      const refund = await call((stripe) =>
        stripe.refunds.retrieve(refundRef, {}, { stripeAccount: connected(account) }),
      );
      return refundOf(refund);
    },

    async createAccount(input) {
      const account = await call((stripe) =>
        stripe.accounts.create(
          { type: "standard", country: input.country, ...(input.email && { email: input.email }) },
          { idempotencyKey: input.idempotencyKey },
        ),
      );
      return accountState(account);
    },

    async deauthorize(input) {
      const clientId = settings.connectClientId ?? null;
      if (!clientId) {
        throw new ProcessorError(
          "unavailable",
          "STRIPE_CONNECT_CLIENT_ID is not set: the platform cannot deauthorize accounts",
        );
      }
      await call((stripe) =>
        stripe.oauth.deauthorize(
          { client_id: clientId, stripe_user_id: input.accountRef },
          { idempotencyKey: input.idempotencyKey },
        ),
      );
    },

    async onboardingLink(input) {
      const link = await call((stripe) =>
        stripe.accountLinks.create({
          account: input.accountRef,
          type: "account_onboarding",
          refresh_url: input.refreshUrl,
          return_url: input.returnUrl,
        }),
      );
      return { url: link.url, expiresAt: new Date(link.expires_at * 1000) };
    },

    async readAccount(accountRef) {
      const account = await call((stripe) => stripe.accounts.retrieve(accountRef));
      return accountState(account);
    },

    parseWebhook: (rawBody, signatureHeader) =>
      parseStripeWebhook(rawBody, signatureHeader, settings.connectWebhookSecret),
  };
}

export function sdkConfig(
  apiUrl: string | null,
  timeoutMs = STRIPE_CALL_TIMEOUT_MS,
): Stripe.StripeConfig {
  const config: Stripe.StripeConfig = {
    telemetry: false,
    maxNetworkRetries: 0,
    timeout: timeoutMs,
    appInfo: { name: "charge-cloud" },
  };
  if (!apiUrl) return config;
  const url = new URL(apiUrl);
  const protocol = url.protocol === "https:" ? "https" : "http";
  return {
    ...config,
    host: url.hostname,
    port: url.port || (protocol === "https" ? 443 : 80),
    protocol,
  };
}

/** Direct charges exist only on a connected account: the platform never holds the money. */
function connected(account: MerchantAccount): string {
  if (!account.accountRef) {
    throw new ProcessorError(
      "invalid",
      "card payments are made on the tenant's connected Stripe account, and none was given",
    );
  }
  return account.accountRef;
}

function refOf(value: string | { id: string } | null): string | null {
  return typeof value === "string" ? value : (value?.id ?? null);
}

function intentState(intent: Stripe.PaymentIntent): IntentState {
  if (!INTENT_STATUSES.includes(intent.status)) {
    throw new ProcessorError("uncertain", `PaymentIntent status "${intent.status}" is not known`);
  }
  const charge = typeof intent.latest_charge === "object" ? intent.latest_charge : null;
  const error = intent.last_payment_error;
  const lastError: CardError | null = error
    ? {
        code: error.code ?? error.type,
        declineCode: error.decline_code ?? null,
        message: error.message ?? "",
      }
    : null;
  return {
    intentRef: intent.id,
    status: intent.status as IntentStatus,
    currency: intent.currency,
    amountMinor: intent.amount,
    amountCapturableMinor: intent.amount_capturable,
    amountReceivedMinor: intent.amount_received,
    amountRefundedMinor: charge?.amount_refunded ?? 0,
    canceledReason: intent.cancellation_reason ?? null,
    lastError,
    captureBefore: captureBeforeOf(charge),
  };
}

/** The card authorization's own deadline, while the charge is uncaptured. */
function captureBeforeOf(charge: Stripe.Charge | null): Date | null {
  const seconds =
    charge && !charge.captured ? charge.payment_method_details?.card?.capture_before : null;
  return typeof seconds === "number" ? new Date(seconds * 1000) : null;
}

function refundOf(refund: Stripe.Refund): Refund {
  if (!REFUND_STATUSES.includes(refund.status ?? "")) {
    throw new ProcessorError("uncertain", `refund status "${refund.status}" is not known`);
  }
  return {
    refundRef: refund.id,
    status: refund.status as RefundStatus,
    amountMinor: refund.amount,
    intentRef: refOf(refund.payment_intent),
    failureReason: refund.failure_reason ?? null,
  };
}

function accountState(account: Stripe.Account): AccountState {
  const requirements = account.requirements;
  const due = new Set([...(requirements?.currently_due ?? []), ...(requirements?.past_due ?? [])]);
  return {
    accountRef: account.id,
    chargesEnabled: account.charges_enabled ?? false,
    detailsSubmitted: account.details_submitted ?? false,
    requirementsDue: [...due].sort(),
  };
}
