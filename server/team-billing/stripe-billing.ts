import Stripe from "stripe";
import { z } from "zod";
import { env } from "../env";
import { classifyStripeError } from "../payments/processors/stripe-errors";
import { sdkConfig } from "../payments/processors/stripe";
import { ProcessorError } from "../payments/processors/types";

/**
 * The platform's own Stripe account, billing its teams (server/team-billing/README.md): Customers,
 * Checkout Sessions in `setup` mode, SetupIntents and PaymentMethods (cards, `us_bank_account`),
 * a Subscription to the metered per-charger price, Billing meter events and Invoices. No
 * `stripeAccount` anywhere: unlike card payments (Connect direct charges) these objects are the
 * platform's. Every change carries the caller's idempotency key (a `team_billing_calls` id); the
 * SDK never retries on its own (`maxNetworkRetries: 0`). Errors are `ProcessorError`s sorted by
 * `classifyStripeError` (uncertain ones are asked again with the same key).
 */
export type MethodKind = "card" | "us_bank_account";
export type InvoicingMode = "automatic" | "send_invoice";

export type MethodSummary =
  | { kind: "card"; ref: string; brand: string; last4: string; exp_month: number; exp_year: number }
  | {
      kind: "us_bank_account";
      ref: string;
      bank_name: string;
      last4: string;
      account_type: string;
    };

export type SetupResult = {
  /** the Checkout Session's own status */
  session: "open" | "complete" | "expired";
  /** the SetupIntent's status, null before the person began */
  intent: string | null;
  method: MethodSummary | null;
  error: { code: string | null; decline_code: string | null; message: string } | null;
};

export type InvoiceState = {
  id: string;
  customerRef: string;
  number: string | null;
  status: string;
  amountDueMinor: number;
  amountPaidMinor: number;
  currency: string;
  hostedUrl: string | null;
  pdfUrl: string | null;
  periodStart: Date | null;
  periodEnd: Date | null;
  dueAt: Date | null;
  attemptCount: number;
  createdAt: Date;
};

export type BillingWebhook =
  | { kind: "refused"; reason: string }
  | { kind: "ignored"; id: string; type: string }
  | {
      kind: "event";
      event: { id: string; type: string; invoiceRef: string | null; customerRef: string | null };
    };

export type BillingStripe = ReturnType<typeof createBillingStripe>;

export type BillingSettings = {
  secretKey: string;
  webhookSecret: string;
  apiUrl: string | null;
  timeoutMs?: number;
};

/** Invoice events that move a team's standing (suspension.ts) */
export const INVOICE_EVENTS = [
  "invoice.created",
  "invoice.finalized",
  "invoice.paid",
  "invoice.payment_failed",
  "invoice.payment_succeeded",
  "invoice.marked_uncollectible",
  "invoice.voided",
  "invoice.overdue",
  "invoice.updated",
] as const;

const eventShape = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  account: z.string().nullish(),
  data: z.object({
    object: z.object({
      id: z.string().min(1),
      object: z.string(),
      customer: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
    }),
  }),
});

const seconds = (value: number | null | undefined) =>
  value === null || value === undefined ? null : new Date(value * 1000);
const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === "string" ? value : (value?.id ?? null);

export function createBillingStripe(settings: BillingSettings) {
  const stripe = new Stripe(settings.secretKey, sdkConfig(settings.apiUrl, settings.timeoutMs));

  async function call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw classifyStripeError(error);
    }
  }

  function summary(pm: Stripe.PaymentMethod): MethodSummary | null {
    if (pm.type === "card" && pm.card) {
      return {
        kind: "card",
        ref: pm.id,
        brand: pm.card.brand,
        last4: pm.card.last4,
        exp_month: pm.card.exp_month,
        exp_year: pm.card.exp_year,
      };
    }
    if (pm.type === "us_bank_account" && pm.us_bank_account) {
      return {
        kind: "us_bank_account",
        ref: pm.id,
        bank_name: pm.us_bank_account.bank_name ?? "Bank account",
        last4: pm.us_bank_account.last4 ?? "",
        account_type: pm.us_bank_account.account_type ?? "checking",
      };
    }
    return null;
  }

  return {
    async createCustomer(
      input: { teamId: number; name: string; email: string | null },
      key: string,
    ) {
      const customer = await call(() =>
        stripe.customers.create(
          {
            name: input.name,
            ...(input.email && { email: input.email }),
            metadata: { team_id: String(input.teamId) },
          },
          { idempotencyKey: key },
        ),
      );
      return customer.id;
    },

    /** A hosted page that saves a card, or a US bank account verified instantly where offered. */
    async createSetupSession(
      input: {
        customerRef: string;
        method: MethodKind;
        teamId: number;
        successUrl: string;
        cancelUrl: string;
      },
      key: string,
    ) {
      const session = await call(() =>
        stripe.checkout.sessions.create(
          {
            mode: "setup",
            customer: input.customerRef,
            currency: "usd",
            // the SDK's API version filters the dynamic set (`payment_method_types` is gone)
            allowed_payment_method_types: [input.method],
            ...(input.method === "us_bank_account" && {
              payment_method_options: {
                us_bank_account: {
                  verification_method: "instant",
                  financial_connections: { permissions: ["payment_method"] },
                },
              },
            }),
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
            metadata: { team_id: String(input.teamId), method: input.method },
          },
          { idempotencyKey: key },
        ),
      );
      if (!session.url) throw new ProcessorError("invalid", "Stripe gave the setup page no URL");
      return {
        sessionRef: session.id,
        url: session.url,
        expiresAt: new Date(session.expires_at * 1000),
      };
    },

    /** What the person did on the setup page: read back from Stripe (a redirect is no proof). */
    async readSetup(sessionRef: string): Promise<SetupResult> {
      const session = await call(() => stripe.checkout.sessions.retrieve(sessionRef));
      const intentRef = idOf(session.setup_intent);
      if (!intentRef) {
        return { session: sessionStatus(session.status), intent: null, method: null, error: null };
      }
      const intent = await call(() =>
        stripe.setupIntents.retrieve(intentRef, { expand: ["payment_method"] }),
      );
      const pm = intent.payment_method;
      const method =
        intent.status === "succeeded" && pm && typeof pm !== "string" ? summary(pm) : null;
      const last = intent.last_setup_error;
      return {
        session: sessionStatus(session.status),
        intent: intent.status,
        method,
        error: last
          ? {
              code: last.code ?? null,
              decline_code: last.decline_code ?? null,
              message: last.message ?? "The payment method was declined.",
            }
          : null,
      };
    },

    async setDefaultMethod(customerRef: string, methodRef: string | null, key: string) {
      await call(() =>
        stripe.customers.update(
          customerRef,
          { invoice_settings: { default_payment_method: methodRef ?? "" } },
          { idempotencyKey: key },
        ),
      );
    },

    async detachMethod(methodRef: string, key: string) {
      await call(() => stripe.paymentMethods.detach(methodRef, {}, { idempotencyKey: key }));
    },

    async createSubscription(
      input: { customerRef: string; priceId: string; mode: InvoicingMode; teamId: number },
      key: string,
    ) {
      const sub = await call(() =>
        stripe.subscriptions.create(
          {
            customer: input.customerRef,
            items: [{ price: input.priceId }],
            ...collection(input.mode),
            metadata: { team_id: String(input.teamId) },
          },
          { idempotencyKey: key },
        ),
      );
      return sub.id;
    },

    async updateSubscription(subscriptionRef: string, mode: InvoicingMode, key: string) {
      await call(() =>
        stripe.subscriptions.update(subscriptionRef, collection(mode), { idempotencyKey: key }),
      );
    },

    /** One meter event; `identifier` lets Stripe drop a second one of the same usage. */
    async sendMeterEvent(
      input: { eventName: string; customerRef: string; value: number; timestamp: Date },
      identifier: string,
    ) {
      await call(() =>
        stripe.billing.meterEvents.create(
          {
            event_name: input.eventName,
            identifier,
            timestamp: Math.floor(input.timestamp.getTime() / 1000),
            payload: { stripe_customer_id: input.customerRef, value: String(input.value) },
          },
          { idempotencyKey: identifier },
        ),
      );
    },

    async readInvoice(invoiceRef: string): Promise<InvoiceState> {
      const inv = await call(() => stripe.invoices.retrieve(invoiceRef));
      return {
        id: inv.id ?? invoiceRef,
        customerRef: idOf(inv.customer) ?? "",
        number: inv.number ?? null,
        status: inv.status ?? "draft",
        amountDueMinor: inv.amount_due,
        amountPaidMinor: inv.amount_paid,
        currency: inv.currency,
        hostedUrl: inv.hosted_invoice_url ?? null,
        pdfUrl: inv.invoice_pdf ?? null,
        periodStart: seconds(inv.period_start),
        periodEnd: seconds(inv.period_end),
        dueAt: seconds(inv.due_date),
        attemptCount: inv.attempt_count,
        createdAt: new Date(inv.created * 1000),
      };
    },

    /** Verified with the SDK (signature, secret, at most 5 minutes old); names what it is about. */
    parseWebhook(raw: string | Buffer, signature: string | null): BillingWebhook {
      if (!signature) return { kind: "refused", reason: "no Stripe-Signature header" };
      let verified: unknown;
      try {
        verified = Stripe.webhooks.constructEvent(raw, signature, settings.webhookSecret);
      } catch (error) {
        return { kind: "refused", reason: error instanceof Error ? error.message : String(error) };
      }
      const parsed = eventShape.safeParse(verified);
      if (!parsed.success)
        return { kind: "refused", reason: "the signed body is not a Stripe event" };
      const event = parsed.data;
      // Connect events of tenants' accounts go to the other endpoint; this one is the platform's.
      if (event.account) return { kind: "ignored", id: event.id, type: event.type };
      const object = event.data.object;
      if (
        object.object !== "invoice" ||
        !(INVOICE_EVENTS as readonly string[]).includes(event.type)
      )
        return { kind: "ignored", id: event.id, type: event.type };
      return {
        kind: "event",
        event: {
          id: event.id,
          type: event.type,
          invoiceRef: object.id,
          customerRef: idOf(object.customer),
        },
      };
    },
  };
}

const sessionStatus = (status: string | null): SetupResult["session"] =>
  status === "complete" || status === "expired" ? status : "open";

function collection(mode: InvoicingMode) {
  return mode === "send_invoice"
    ? ({ collection_method: "send_invoice", days_until_due: 30 } as const)
    : ({ collection_method: "charge_automatically" } as const);
}

export type TeamBillingConfig = {
  stripe: BillingStripe;
  priceId: string;
  meterEvent: string;
  graceDays: number;
};

let config: TeamBillingConfig | null | undefined;

/**
 * Team billing as this process is configured: the platform's Stripe client, the metered price,
 * the meter's event name and the grace period; null when it is off (no STRIPE_SECRET_KEY,
 * STRIPE_BILLING_WEBHOOK_SECRET or STRIPE_BILLING_PRICE_ID): then nothing is limited by it.
 */
export function teamBilling(): TeamBillingConfig | null {
  if (config === undefined) {
    const e = env();
    config =
      e.teamBilling && e.stripe.secretKey
        ? {
            stripe: createBillingStripe({
              secretKey: e.stripe.secretKey,
              webhookSecret: e.teamBilling.webhookSecret,
              apiUrl: e.stripe.apiUrl,
            }),
            priceId: e.teamBilling.priceId,
            meterEvent: e.teamBilling.meterEvent,
            graceDays: e.teamBilling.graceDays,
          }
        : null;
  }
  return config;
}

/** For tests: team billing as given in this process (e.g. against the Stripe fake); null: off. */
export function useTeamBilling(next: TeamBillingConfig | null) {
  config = next;
}
