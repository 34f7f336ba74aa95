import {
  DECLINE_MESSAGES,
  declineCodeOf,
  fakeId,
  invalidParam,
  missing,
  noSuch,
  now,
  stringRecord,
  stripeError,
  type Answer,
  type Params,
  type Scope,
} from "./stripe-fake-objects";
import type { FakeStripeState } from "./stripe-fake-state";

/**
 * The platform's own billing objects in the Stripe fake (team billing: the service billing its
 * teams; server/team-billing/README.md): Customers, Checkout Sessions in `setup` mode and their
 * SetupIntents, PaymentMethods (`card`, `us_bank_account`), Subscriptions, Billing meter events
 * and Invoices. Test code; the HTTP shell, idempotency and faults are stripe-fake.ts's.
 *
 * As Stripe documents them: objects live on the platform (no Stripe-Account); a setup session's
 * `setup_intent` exists once the person acts on the page, and a declined card leaves it
 * `requires_payment_method` with `last_setup_error` while the session stays open for another try;
 * a bank account verified instantly (Financial Connections) makes the intent `succeeded`, one
 * left to microdeposits `requires_action`; a meter event's `identifier` is unique (Stripe: within
 * at least 24 hours). Assumed, not documented: a second event with a used identifier is answered
 * as accepted and not counted again. Not modelled: prices and meters as objects (any `price_…`
 * is accepted), proration, invoice line items, tax, Smart Retries' schedule (a test says when a
 * payment fails or succeeds), list endpoints.
 */
export type SetupOutcome =
  | { card: "success" | { decline: keyof typeof DECLINE_MESSAGES } }
  | { bank: "instant" | "microdeposits" };

type Customer = {
  id: string;
  object: "customer";
  name: string | null;
  email: string | null;
  invoice_settings: { default_payment_method: string | null };
  metadata: Record<string, string>;
  created: number;
};
type SetupSession = {
  id: string;
  object: "checkout.session";
  mode: "setup";
  status: "open" | "complete" | "expired";
  customer: string;
  setup_intent: string | null;
  payment_method_types: string[];
  url: string | null;
  success_url: string;
  cancel_url: string | null;
  metadata: Record<string, string>;
  expires_at: number;
  created: number;
  livemode: false;
};
type SetupIntent = {
  id: string;
  object: "setup_intent";
  customer: string;
  status: string;
  payment_method: string | null;
  payment_method_types: string[];
  last_setup_error: {
    type: string;
    code: string;
    decline_code?: string;
    message: string;
  } | null;
  created: number;
};
type PaymentMethod = {
  id: string;
  object: "payment_method";
  type: "card" | "us_bank_account";
  customer: string | null;
  card?: { brand: string; last4: string; exp_month: number; exp_year: number };
  us_bank_account?: {
    bank_name: string;
    last4: string;
    account_type: string;
    account_holder_type: string;
  };
  created: number;
};
type Subscription = {
  id: string;
  object: "subscription";
  customer: string;
  status: string;
  collection_method: string;
  days_until_due: number | null;
  items: { object: "list"; data: { id: string; price: { id: string } }[] };
  metadata: Record<string, string>;
  created: number;
};
type Invoice = {
  id: string;
  object: "invoice";
  customer: string;
  subscription: string | null;
  number: string;
  status: "draft" | "open" | "paid" | "void" | "uncollectible";
  collection_method: string;
  amount_due: number;
  amount_paid: number;
  amount_remaining: number;
  currency: string;
  attempt_count: number;
  hosted_invoice_url: string;
  invoice_pdf: string;
  period_start: number;
  period_end: number;
  due_date: number | null;
  created: number;
};
export type MeterEvent = {
  event_name: string;
  identifier: string;
  timestamp: number;
  payload: Record<string, string>;
};

const ok = (body: unknown): Answer => ({ status: 200, body, store: true });
const clone = <T>(value: T): T => structuredClone(value);

export class FakeBilling {
  readonly customers = new Map<string, Customer>();
  readonly sessions = new Map<string, SetupSession>();
  readonly intents = new Map<string, SetupIntent>();
  readonly methods = new Map<string, PaymentMethod>();
  readonly subscriptions = new Map<string, Subscription>();
  readonly invoices = new Map<string, Invoice>();
  /** meter events Stripe counted, in order (a replay or a used identifier adds none) */
  readonly meterEvents: MeterEvent[] = [];
  private invoiceNumber = 0;

  constructor(private readonly state: FakeStripeState) {}

  private platform(scope: Scope): Answer | null {
    return scope === "platform"
      ? null
      : stripeError(400, {
          type: "invalid_request_error",
          message: "The fake keeps billing objects on the platform account only",
        });
  }

  // ---- API handlers ----

  createCustomer(scope: Scope, params: Params): Answer {
    const refused = this.platform(scope);
    if (refused) return refused;
    const customer: Customer = {
      id: fakeId("cus"),
      object: "customer",
      name: typeof params.name === "string" ? params.name : null,
      email: typeof params.email === "string" ? params.email : null,
      invoice_settings: { default_payment_method: null },
      metadata: stringRecord(params.metadata),
      created: now(),
    };
    this.customers.set(customer.id, customer);
    this.state.emit("platform", "customer.created", customer);
    return ok(customer);
  }

  readCustomer(id: string): Answer {
    const customer = this.customers.get(id);
    return customer ? ok(customer) : noSuch("customer", id);
  }

  updateCustomer(id: string, params: Params): Answer {
    const customer = this.customers.get(id);
    if (!customer) return noSuch("customer", id);
    const settings = params.invoice_settings as Params | undefined;
    if (settings && "default_payment_method" in settings) {
      const ref = settings.default_payment_method;
      if (typeof ref === "string" && ref !== "") {
        const pm = this.methods.get(ref);
        if (!pm || pm.customer !== id)
          return invalidParam(
            "invoice_settings[default_payment_method]",
            `No such PaymentMethod: '${ref}' attached to this customer`,
          );
        customer.invoice_settings.default_payment_method = ref;
      } else customer.invoice_settings.default_payment_method = null;
    }
    this.state.emit("platform", "customer.updated", customer);
    return ok(customer);
  }

  createSetupSession(scope: Scope, params: Params): Answer {
    const refused = this.platform(scope);
    if (refused) return refused;
    if (typeof params.customer !== "string") return missing("customer");
    if (!this.customers.has(params.customer)) return noSuch("customer", params.customer);
    if (typeof params.success_url !== "string") return missing("success_url");
    // `allowed_payment_method_types` in the SDK's API version; `payment_method_types` before it
    const asked = params.allowed_payment_method_types ?? params.payment_method_types;
    const types = Array.isArray(asked)
      ? asked.filter((t): t is string => typeof t === "string")
      : ["card"];
    if (types.some((t) => t !== "card" && t !== "us_bank_account"))
      return invalidParam("payment_method_types", "the fake supports card and us_bank_account");
    const session: SetupSession = {
      id: fakeId("cs_test"),
      object: "checkout.session",
      mode: "setup",
      status: "open",
      customer: params.customer,
      setup_intent: null,
      payment_method_types: types,
      url: null,
      success_url: params.success_url,
      cancel_url: typeof params.cancel_url === "string" ? params.cancel_url : null,
      metadata: stringRecord(params.metadata),
      expires_at: now() + 24 * 3600,
      created: now(),
      livemode: false,
    };
    session.url = `${this.state.origin()}/c/setup/${session.id}`;
    this.sessions.set(session.id, session);
    return ok(session);
  }

  hasSession(id: string) {
    return this.sessions.has(id);
  }

  readSession(id: string): Answer {
    const session = this.sessions.get(id);
    return session ? ok(session) : noSuch("checkout.session", id);
  }

  readSetupIntent(id: string, params: Params): Answer {
    const intent = this.intents.get(id);
    if (!intent) return noSuch("setup_intent", id);
    const copy = clone(intent) as Omit<SetupIntent, "payment_method"> & {
      payment_method: string | PaymentMethod | null;
    };
    const expand = Array.isArray(params.expand) ? params.expand : [];
    if (expand.includes("payment_method") && intent.payment_method)
      copy.payment_method = clone(this.methods.get(intent.payment_method) ?? null);
    return ok(copy);
  }

  detachMethod(id: string): Answer {
    const pm = this.methods.get(id);
    if (!pm) return noSuch("payment_method", id);
    if (!pm.customer)
      return stripeError(400, {
        type: "invalid_request_error",
        code: "payment_method_unexpected_state",
        message:
          "The payment method you provided is not attached to a customer so detachment is impossible.",
      });
    const customer = this.customers.get(pm.customer);
    if (customer?.invoice_settings.default_payment_method === id)
      customer.invoice_settings.default_payment_method = null;
    pm.customer = null;
    this.state.emit("platform", "payment_method.detached", pm);
    return ok(pm);
  }

  createSubscription(scope: Scope, params: Params): Answer {
    const refused = this.platform(scope);
    if (refused) return refused;
    if (typeof params.customer !== "string") return missing("customer");
    if (!this.customers.has(params.customer)) return noSuch("customer", params.customer);
    const items = Array.isArray(params.items) ? (params.items as Params[]) : [];
    const price = items[0]?.price;
    if (typeof price !== "string" || !price.startsWith("price_")) return missing("items[0][price]");
    const collection = params.collection_method ?? "charge_automatically";
    if (collection !== "charge_automatically" && collection !== "send_invoice")
      return invalidParam("collection_method", "Invalid collection_method");
    if (collection === "send_invoice" && typeof params.days_until_due !== "string")
      return missing("days_until_due");
    const sub: Subscription = {
      id: fakeId("sub"),
      object: "subscription",
      customer: params.customer,
      status: "active",
      collection_method: collection,
      days_until_due: collection === "send_invoice" ? Number(params.days_until_due) : null,
      items: { object: "list", data: [{ id: fakeId("si"), price: { id: price } }] },
      metadata: stringRecord(params.metadata),
      created: now(),
    };
    this.subscriptions.set(sub.id, sub);
    this.state.emit("platform", "customer.subscription.created", sub);
    return ok(sub);
  }

  updateSubscription(id: string, params: Params): Answer {
    const sub = this.subscriptions.get(id);
    if (!sub) return noSuch("subscription", id);
    const collection = params.collection_method;
    if (collection === "send_invoice") {
      if (typeof params.days_until_due !== "string") return missing("days_until_due");
      Object.assign(sub, {
        collection_method: collection,
        days_until_due: Number(params.days_until_due),
      });
    } else if (collection === "charge_automatically") {
      Object.assign(sub, { collection_method: collection, days_until_due: null });
    } else if (collection !== undefined) {
      return invalidParam("collection_method", "Invalid collection_method");
    }
    this.state.emit("platform", "customer.subscription.updated", sub);
    return ok(sub);
  }

  createMeterEvent(scope: Scope, params: Params): Answer {
    const refused = this.platform(scope);
    if (refused) return refused;
    if (typeof params.event_name !== "string") return missing("event_name");
    const payload = stringRecord(params.payload);
    const customer = payload.stripe_customer_id;
    if (!customer) return missing("payload[stripe_customer_id]");
    if (!this.customers.has(customer)) return noSuch("customer", customer);
    if (!/^\d+$/.test(payload.value ?? ""))
      return invalidParam("payload[value]", "must be a whole number");
    const identifier = typeof params.identifier === "string" ? params.identifier : fakeId("mev");
    const event: MeterEvent = {
      event_name: params.event_name,
      identifier,
      timestamp: typeof params.timestamp === "string" ? Number(params.timestamp) : now(),
      payload,
    };
    if (!this.meterEvents.some((e) => e.identifier === identifier)) this.meterEvents.push(event);
    return ok({ object: "billing.meter_event", created: now(), livemode: false, ...event });
  }

  readInvoice(id: string): Answer {
    const invoice = this.invoices.get(id);
    return invoice ? ok(invoice) : noSuch("invoice", id);
  }

  // ---- test controls: the person on the hosted page, Stripe's invoicing clock ----

  /** The person finishes the setup page with a card or a bank account (or a card is declined). */
  completeSetup(sessionId: string, outcome: SetupOutcome): string | null {
    const session = this.sessions.get(sessionId);
    if (!session || session.status !== "open") throw new Error(`setup ${sessionId} is not open`);
    const intent =
      (session.setup_intent && this.intents.get(session.setup_intent)) || this.newIntent(session);
    const kind = "card" in outcome ? "card" : "us_bank_account";
    if (!session.payment_method_types.includes(kind))
      throw new Error(`setup ${sessionId} does not take ${kind}`);
    if ("card" in outcome && outcome.card !== "success") {
      const reason = outcome.card.decline;
      intent.status = "requires_payment_method";
      intent.last_setup_error = {
        type: "card_error",
        code: declineCodeOf(reason),
        decline_code: reason,
        message: DECLINE_MESSAGES[reason] ?? "Your card was declined.",
      };
      this.state.emit("platform", "setup_intent.setup_failed", intent);
      return null;
    }
    const pm: PaymentMethod = {
      id: fakeId("pm"),
      object: "payment_method",
      type: kind,
      customer: session.customer,
      ...(kind === "card"
        ? { card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030 } }
        : {
            us_bank_account: {
              bank_name: "STRIPE TEST BANK",
              last4: "6789",
              account_type: "checking",
              account_holder_type: "company",
            },
          }),
      created: now(),
    };
    this.methods.set(pm.id, pm);
    intent.payment_method = pm.id;
    intent.last_setup_error = null;
    if ("bank" in outcome && outcome.bank === "microdeposits") {
      intent.status = "requires_action";
      this.state.emit("platform", "setup_intent.requires_action", intent);
    } else {
      intent.status = "succeeded";
      this.state.emit("platform", "setup_intent.succeeded", intent);
    }
    session.status = "complete";
    session.url = null;
    this.state.emit("platform", "checkout.session.completed", session);
    return pm.id;
  }

  /** Stripe drafts and finalizes an invoice for the customer's subscription. */
  openInvoice(customer: string, amountMinor: number, options: { dueInDays?: number } = {}): string {
    const sub = [...this.subscriptions.values()].find((s) => s.customer === customer);
    if (!this.customers.has(customer)) throw new Error(`no customer ${customer}`);
    const created = now();
    this.invoiceNumber += 1;
    const sendInvoice = sub?.collection_method === "send_invoice";
    const id = fakeId("in");
    const invoice: Invoice = {
      id,
      object: "invoice",
      customer,
      subscription: sub?.id ?? null,
      number: `FAKE-${String(this.invoiceNumber).padStart(4, "0")}`,
      status: "open",
      collection_method: sub?.collection_method ?? "charge_automatically",
      amount_due: amountMinor,
      amount_paid: 0,
      amount_remaining: amountMinor,
      currency: "usd",
      attempt_count: 0,
      hosted_invoice_url: `${this.state.origin()}/i/${id}`,
      invoice_pdf: `${this.state.origin()}/i/${id}/pdf`,
      period_start: created - 30 * 86_400,
      period_end: created,
      due_date: sendInvoice
        ? created + (options.dueInDays ?? sub?.days_until_due ?? 30) * 86_400
        : null,
      created,
    };
    this.invoices.set(invoice.id, invoice);
    this.state.emit("platform", "invoice.created", invoice);
    this.state.emit("platform", "invoice.finalized", invoice);
    return invoice.id;
  }

  /** An automatic payment attempt fails (a declined card, a returned debit). */
  failInvoicePayment(invoiceId: string) {
    const invoice = this.requireInvoice(invoiceId);
    if (invoice.status !== "open") throw new Error(`${invoiceId} is ${invoice.status}`);
    invoice.attempt_count += 1;
    this.state.emit("platform", "invoice.payment_failed", invoice);
  }

  /** The invoice is paid (a retry succeeded, or the customer paid the hosted invoice). */
  payInvoice(invoiceId: string) {
    const invoice = this.requireInvoice(invoiceId);
    if (invoice.status !== "open") throw new Error(`${invoiceId} is ${invoice.status}`);
    invoice.attempt_count += 1;
    Object.assign(invoice, {
      status: "paid",
      amount_paid: invoice.amount_due,
      amount_remaining: 0,
    });
    this.state.emit("platform", "invoice.payment_succeeded", invoice);
    this.state.emit("platform", "invoice.paid", invoice);
  }

  private requireInvoice(id: string): Invoice {
    const invoice = this.invoices.get(id);
    if (!invoice) throw new Error(`no invoice ${id}`);
    return invoice;
  }

  private newIntent(session: SetupSession): SetupIntent {
    const intent: SetupIntent = {
      id: fakeId("seti"),
      object: "setup_intent",
      customer: session.customer,
      status: "requires_payment_method",
      payment_method: null,
      payment_method_types: session.payment_method_types,
      last_setup_error: null,
      created: now(),
    };
    this.intents.set(intent.id, intent);
    session.setup_intent = intent.id;
    return intent;
  }
}
