import Stripe from "stripe";
import {
  DECLINE_MESSAGES,
  declineCodeOf,
  fakeId,
  invalidParam,
  minorUnits,
  missing,
  noSuch,
  now,
  stringRecord,
  stripeError,
  type Answer,
  type FakeAccount,
  type FakeCharge,
  type FakeIntent,
  type FakeObject,
  type FakeRefund,
  type FakeSession,
  type Params,
  type Scope,
} from "./stripe-fake-objects";

/** A Stripe event as a Connect webhook delivers it (`account` set for connected accounts). */
export type FakeEvent = {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  type: string;
  account?: string;
  livemode: false;
  pending_webhooks: number;
  request: { id: null; idempotency_key: string | null };
  data: { object: unknown };
};

export type CardOutcome = "success" | { decline: keyof typeof DECLINE_MESSAGES };

const CANCELABLE = [
  "requires_payment_method",
  "requires_capture",
  "requires_confirmation",
  "requires_action",
  "processing",
];

/**
 * The fake's accounts and objects, the API handlers that change them, and the test controls
 * that stand for what a customer, a card network or Stripe's own clock would do.
 */
export class FakeStripeState {
  readonly accounts = new Map<string, FakeAccount>();
  private readonly objects = new Map<string, { scope: Scope; object: FakeObject }>();
  readonly events: FakeEvent[] = [];
  /** captures applied, in order: a retried request that replays adds nothing here */
  readonly captures: { intent: string; amount: number }[] = [];

  constructor(private readonly origin: () => string) {}

  // ---- API handlers (scope = the Stripe-Account header, or `platform`) ----

  createAccount(params: Params): Answer {
    const country = typeof params.country === "string" ? params.country : "US";
    if (!/^[A-Z]{2}$/.test(country)) return invalidParam("country", "Invalid country");
    const due = ["business_profile.url", "external_account", "tos_acceptance.date"];
    const account: FakeAccount = {
      id: fakeId("acct"),
      object: "account",
      type: typeof params.type === "string" ? params.type : "standard",
      country,
      email: typeof params.email === "string" ? params.email : null,
      charges_enabled: false,
      payouts_enabled: false,
      details_submitted: false,
      requirements: {
        currently_due: due,
        eventually_due: due,
        past_due: due,
        disabled_reason: "requirements.past_due",
      },
      metadata: stringRecord(params.metadata),
      created: now(),
    };
    this.accounts.set(account.id, account);
    return { status: 200, body: account, store: true };
  }

  readAccount(id: string): Answer {
    const account = this.accounts.get(id);
    return account ? { status: 200, body: account, store: true } : accountInvalid(id);
  }

  createAccountLink(params: Params): Answer {
    for (const name of ["account", "refresh_url", "return_url", "type"]) {
      if (typeof params[name] !== "string") return missing(name);
    }
    const id = params.account as string;
    if (!this.accounts.has(id)) return accountInvalid(id);
    const body = {
      object: "account_link",
      created: now(),
      expires_at: now() + 300,
      url: `${this.origin()}/setup/s/${id}/${fakeId("link")}`,
    };
    return { status: 200, body, store: true };
  }

  createSession(scope: Scope, params: Params): Answer {
    if (params.mode !== "payment") return invalidParam("mode", "the fake supports mode=payment");
    if (typeof params.success_url !== "string") return missing("success_url");
    const items = Array.isArray(params.line_items) ? (params.line_items as Params[]) : [];
    if (items.length === 0) return missing("line_items");
    let total = 0;
    let currency: string | null = null;
    for (const item of items) {
      const price = (item.price_data ?? {}) as Params;
      const unit = minorUnits(price.unit_amount);
      const quantity = minorUnits(item.quantity);
      if (unit === null) return missing("line_items[0][price_data][unit_amount]");
      if (quantity === null) return missing("line_items[0][quantity]");
      if (typeof price.currency !== "string") return missing("line_items[0][price_data][currency]");
      if (currency !== null && currency !== price.currency) {
        return invalidParam("line_items", "All line items must use the same currency");
      }
      currency = price.currency;
      total += unit * quantity;
    }
    if (currency === "usd" && total < 50) {
      return stripeError(400, {
        type: "invalid_request_error",
        code: "amount_too_small",
        message: "The Checkout Session's total amount due must add up to at least $0.50 usd",
      });
    }
    const intentData = (params.payment_intent_data ?? {}) as Params;
    const captureMethod = intentData.capture_method ?? "automatic";
    if (captureMethod !== "manual" && captureMethod !== "automatic") {
      return invalidParam("payment_intent_data[capture_method]", "Invalid capture_method");
    }
    const session: FakeSession & { intentData: Params } = {
      id: fakeId("cs_test"),
      object: "checkout.session",
      mode: "payment",
      status: "open",
      payment_status: "unpaid",
      amount_subtotal: total,
      amount_total: total,
      currency: currency ?? "usd",
      payment_intent: null,
      payment_method_types: ["card"],
      url: null,
      success_url: params.success_url,
      cancel_url: typeof params.cancel_url === "string" ? params.cancel_url : null,
      metadata: stringRecord(params.metadata),
      expires_at: now() + 24 * 3600,
      created: now(),
      livemode: false,
      intentData: { ...intentData, capture_method: captureMethod },
    };
    session.url = `${this.origin()}/c/pay/${session.id}`;
    this.objects.set(session.id, { scope, object: session });
    return { status: 200, body: publicView(session), store: true };
  }

  readSession(scope: Scope, id: string): Answer {
    const session = this.find<FakeSession>(scope, id, "checkout.session");
    return session ? ok(publicView(session)) : noSuch("checkout.session", id);
  }

  readIntent(scope: Scope, id: string, params: Params): Answer {
    const intent = this.find<FakeIntent>(scope, id, "payment_intent");
    return intent ? ok(this.expanded(intent, params)) : noSuch("payment_intent", id);
  }

  capture(scope: Scope, id: string, params: Params): Answer {
    const intent = this.find<FakeIntent>(scope, id, "payment_intent");
    if (!intent) return noSuch("payment_intent", id);
    let amount = intent.amount_capturable;
    if (params.amount_to_capture !== undefined) {
      const asked = minorUnits(params.amount_to_capture);
      if (asked === null) return invalidParam("amount_to_capture", "Invalid integer");
      amount = asked;
    }
    if (intent.status !== "requires_capture") {
      return unexpectedState(
        `This PaymentIntent could not be captured because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
      );
    }
    if (amount > intent.amount_capturable) {
      return stripeError(400, {
        type: "invalid_request_error",
        code: "amount_too_large",
        param: "amount_to_capture",
        message: "The amount_to_capture cannot be greater than the amount_capturable.",
      });
    }
    const charge = this.chargeOf(intent);
    intent.status = "succeeded";
    intent.amount_received = amount;
    intent.amount_capturable = 0;
    if (charge) Object.assign(charge, { captured: true, amount_captured: amount });
    this.captures.push({ intent: intent.id, amount });
    this.emit(scope, "payment_intent.succeeded", intent);
    return ok(this.expanded(intent, params));
  }

  cancel(scope: Scope, id: string, params: Params): Answer {
    const intent = this.find<FakeIntent>(scope, id, "payment_intent");
    if (!intent) return noSuch("payment_intent", id);
    if (!CANCELABLE.includes(intent.status)) {
      return unexpectedState(
        `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(", ")}.`,
      );
    }
    const reason =
      typeof params.cancellation_reason === "string" ? params.cancellation_reason : null;
    this.cancelIntent(scope, intent, reason);
    return ok(this.expanded(intent, params));
  }

  refund(scope: Scope, params: Params): Answer {
    if (typeof params.payment_intent !== "string") return missing("payment_intent");
    const intent = this.find<FakeIntent>(scope, params.payment_intent, "payment_intent");
    if (!intent) return noSuch("payment_intent", params.payment_intent);
    const charge = this.chargeOf(intent);
    if (intent.status !== "succeeded" || !charge) {
      return unexpectedState(
        `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
      );
    }
    const remaining = charge.amount_captured - charge.amount_refunded;
    if (remaining === 0) {
      return stripeError(400, {
        type: "invalid_request_error",
        code: "charge_already_refunded",
        message: `Charge ${charge.id} has already been refunded.`,
      });
    }
    let amount = remaining;
    if (params.amount !== undefined) {
      const asked = minorUnits(params.amount);
      if (asked === null) return invalidParam("amount", "Invalid integer");
      amount = asked;
    }
    if (amount > remaining) {
      return stripeError(400, {
        type: "invalid_request_error",
        code: "amount_too_large",
        param: "amount",
        message: `Refund amount ($${amount / 100}) is greater than unrefunded amount on charge ($${remaining / 100})`,
      });
    }
    const refund: FakeRefund = {
      id: fakeId("re"),
      object: "refund",
      amount,
      charge: charge.id,
      payment_intent: intent.id,
      currency: intent.currency,
      status: "succeeded",
      reason: typeof params.reason === "string" ? params.reason : null,
      created: now(),
    };
    this.objects.set(refund.id, { scope, object: refund });
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount_captured;
    this.emit(scope, "charge.refunded", charge);
    return ok(refund);
  }

  // ---- test controls ----

  /** how many objects of a kind an account holds */
  count(scope: Scope, kind: FakeObject["object"]): number {
    let n = 0;
    for (const stored of this.objects.values()) {
      if (stored.scope === scope && stored.object.object === kind) n += 1;
    }
    return n;
  }

  /** The customer pays on the hosted page with a card that succeeds or is declined. */
  completeCheckout(sessionId: string, outcome: CardOutcome) {
    const { scope, object } = this.require<FakeSession & { intentData: Params }>(sessionId);
    if (object.status !== "open") throw new Error(`checkout ${sessionId} is ${object.status}`);
    const intent = object.payment_intent
      ? this.require<FakeIntent>(object.payment_intent).object
      : this.newIntent(scope, object);
    object.payment_intent = intent.id;
    const charge: FakeCharge = {
      id: fakeId("ch"),
      object: "charge",
      amount: intent.amount,
      amount_captured: 0,
      amount_refunded: 0,
      captured: false,
      refunded: false,
      paid: outcome === "success",
      status: outcome === "success" ? "succeeded" : "failed",
      currency: intent.currency,
      payment_intent: intent.id,
      created: now(),
      livemode: false,
    };
    this.objects.set(charge.id, { scope, object: charge });
    intent.latest_charge = charge.id;
    if (outcome !== "success") {
      intent.last_payment_error = {
        type: "card_error",
        code: declineCodeOf(outcome.decline),
        decline_code: outcome.decline,
        message: DECLINE_MESSAGES[outcome.decline] ?? "Your card was declined.",
        charge: charge.id,
      };
      this.emit(scope, "payment_intent.payment_failed", intent);
      return;
    }
    intent.last_payment_error = null;
    if (intent.capture_method === "manual") {
      intent.status = "requires_capture";
      intent.amount_capturable = intent.amount;
      this.emit(scope, "payment_intent.amount_capturable_updated", intent);
    } else {
      Object.assign(intent, { status: "succeeded", amount_received: intent.amount });
      Object.assign(charge, { captured: true, amount_captured: intent.amount });
      this.emit(scope, "payment_intent.succeeded", intent);
    }
    object.status = "complete";
    object.payment_status = intent.status === "succeeded" ? "paid" : "unpaid";
    this.emit(scope, "checkout.session.completed", publicView(object));
  }

  /** The session's 24 hours (or its expires_at) run out, or the platform expires it. */
  expireCheckout(sessionId: string) {
    const { scope, object } = this.require<FakeSession>(sessionId);
    if (object.status !== "open") throw new Error(`checkout ${sessionId} is ${object.status}`);
    object.status = "expired";
    object.url = null;
    if (object.payment_intent) {
      const intent = this.require<FakeIntent>(object.payment_intent).object;
      if (CANCELABLE.includes(intent.status)) this.cancelIntent(scope, intent, "abandoned");
    }
    this.emit(scope, "checkout.session.expired", publicView(object));
  }

  /** The card authorization lapses uncaptured (about 7 days for cards). */
  expireAuthorization(intentId: string) {
    const { scope, object } = this.require<FakeIntent>(intentId);
    if (object.status !== "requires_capture") throw new Error(`${intentId} is ${object.status}`);
    this.cancelIntent(scope, object, "automatic");
  }

  updateAccount(
    id: string,
    change: { chargesEnabled?: boolean; detailsSubmitted?: boolean; requirementsDue?: string[] },
  ) {
    const account = this.accounts.get(id);
    if (!account) throw new Error(`no account ${id}`);
    if (change.chargesEnabled !== undefined) account.charges_enabled = change.chargesEnabled;
    if (change.detailsSubmitted !== undefined) account.details_submitted = change.detailsSubmitted;
    if (change.requirementsDue !== undefined) {
      const due = change.requirementsDue;
      account.requirements = {
        currently_due: due,
        eventually_due: due,
        past_due: [],
        disabled_reason: account.charges_enabled ? null : "requirements.past_due",
      };
    }
    this.emit(id, "account.updated", account);
  }

  // ---- internals ----

  private newIntent(scope: Scope, session: FakeSession & { intentData: Params }): FakeIntent {
    const intent: FakeIntent = {
      id: fakeId("pi"),
      object: "payment_intent",
      amount: session.amount_total,
      amount_capturable: 0,
      amount_received: 0,
      currency: session.currency,
      status: "requires_payment_method",
      capture_method: String(session.intentData.capture_method),
      cancellation_reason: null,
      canceled_at: null,
      description:
        typeof session.intentData.description === "string" ? session.intentData.description : null,
      metadata: stringRecord(session.intentData.metadata),
      last_payment_error: null,
      latest_charge: null,
      created: now(),
      livemode: false,
    };
    this.objects.set(intent.id, { scope, object: intent });
    return intent;
  }

  private cancelIntent(scope: Scope, intent: FakeIntent, reason: string | null) {
    Object.assign(intent, {
      status: "canceled",
      cancellation_reason: reason,
      canceled_at: now(),
      amount_capturable: 0,
    });
    this.emit(scope, "payment_intent.canceled", intent);
  }

  /** Objects are visible only in the account that holds them: elsewhere they do not exist. */
  private find<T extends FakeObject>(scope: Scope, id: string, kind: T["object"]): T | null {
    const stored = this.objects.get(id);
    return stored && stored.scope === scope && stored.object.object === kind
      ? (stored.object as T)
      : null;
  }

  private require<T extends FakeObject>(id: string): { scope: Scope; object: T } {
    const stored = this.objects.get(id);
    if (!stored) throw new Error(`the fake holds no ${id}`);
    return stored as { scope: Scope; object: T };
  }

  private chargeOf(intent: FakeIntent): FakeCharge | null {
    return intent.latest_charge ? this.require<FakeCharge>(intent.latest_charge).object : null;
  }

  private expanded(intent: FakeIntent, params: Params) {
    const expand = Array.isArray(params.expand) ? params.expand : [];
    const copy = structuredClone(intent) as Omit<FakeIntent, "latest_charge"> & {
      latest_charge: string | FakeCharge | null;
    };
    if (expand.includes("latest_charge") && intent.latest_charge) {
      copy.latest_charge = structuredClone(this.chargeOf(intent));
    }
    return copy;
  }

  private emit(scope: Scope, type: string, object: unknown) {
    this.events.push({
      id: fakeId("evt"),
      object: "event",
      api_version: Stripe.API_VERSION,
      created: now(),
      type,
      ...(scope !== "platform" && { account: scope }),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object: structuredClone(object) },
    });
  }
}

const ok = (body: unknown): Answer => ({ status: 200, body, store: true });

function publicView(session: FakeSession): FakeSession {
  const { intentData: _hidden, ...rest } = session as FakeSession & { intentData?: Params };
  return structuredClone(rest);
}

function unexpectedState(message: string): Answer {
  return stripeError(400, {
    type: "invalid_request_error",
    code: "payment_intent_unexpected_state",
    message,
  });
}

/** Stripe answers alike for an account that does not exist and one the platform cannot reach. */
export function accountInvalid(id: string): Answer {
  return stripeError(
    403,
    {
      type: "invalid_request_error",
      code: "account_invalid",
      message: `The provided key does not have access to account '${id}' (or that account does not exist). Application access may have been revoked.`,
    },
    false,
  );
}
