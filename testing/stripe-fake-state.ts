import Stripe from "stripe";
import type { FakeAccountLink } from "./stripe-fake-onboarding";
import {
  DECLINE_MESSAGES,
  declineCodeOf,
  fakeId,
  now,
  stringRecord,
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

/**
 * Ways a payer's attempt leaves the intent without the full hold (see leaveIncomplete):
 * - `requires_action`: 3-D Secure was started and not finished. Stripe keeps the session open
 *   (a card checkout completes only once the card is authorized) and emits
 *   `payment_intent.requires_action`; the payer may still finish, or the session expires.
 * - `processing`: the session completes while the intent is still `processing`. Stripe does this
 *   for delayed-notification payment methods (`checkout.session.completed` with payment_status
 *   `unpaid`, the outcome following later); a card intent is only briefly `processing`, and this
 *   fake lets a card session complete that way to stand for any payment not yet settled.
 * - `{ partialMinor }`: the issuer authorizes less than the amount (`requires_capture` with
 *   amount_capturable below amount). Stripe calls this a partial authorization: card-present, and
 *   for online cards only when asked for (`request_partial_authorization`); Checkout does not ask
 *   for it. The fake allows it so that the product's guard against a short hold is exercised.
 */
export type IncompleteOutcome = "requires_action" | "processing" | { partialMinor: number };

/** How long an online card authorization lasts by default (Stripe: 7 days for most cards). */
export const CARD_AUTHORIZATION_SECONDS = 7 * 86_400;

export const CANCELABLE = [
  "requires_payment_method",
  "requires_capture",
  "requires_confirmation",
  "requires_action",
  "processing",
];

/**
 * The fake's accounts and objects, and the test controls that stand for what a customer, a card
 * network or Stripe's own clock would do. The API handlers are stripe-fake-api.ts.
 */
export class FakeStripeState {
  readonly accounts = new Map<string, FakeAccount>();
  /** accounts whose platform access was revoked: to the platform they no longer exist */
  readonly revoked = new Set<string>();
  /** Account Links by id: what the hosted onboarding page (stripe-fake-onboarding.ts) serves */
  readonly accountLinks = new Map<string, FakeAccountLink>();
  readonly objects = new Map<string, { scope: Scope; object: FakeObject }>();
  readonly events: FakeEvent[] = [];
  /** captures applied, in order: a retried request that replays adds nothing here */
  readonly captures: { intent: string; amount: number }[] = [];

  constructor(readonly origin: () => string) {}

  // ---- test controls ----

  /** how many objects of a kind an account holds */
  count(scope: Scope, kind: FakeObject["object"]): number {
    let n = 0;
    for (const stored of this.objects.values()) {
      if (stored.scope === scope && stored.object.object === kind) n += 1;
    }
    return n;
  }

  /**
   * The customer pays on the hosted page with a card that succeeds or is declined. A manual
   * capture's charge shows the authorization's deadline (`capture_before`): 7 days from now
   * unless `captureBefore` says otherwise (issuers and card networks set shorter ones).
   */
  completeCheckout(
    sessionId: string,
    outcome: CardOutcome,
    options: { captureBefore?: Date } = {},
  ) {
    const { scope, object } = this.require<FakeSession & { intentData: Params }>(sessionId);
    if (object.status !== "open") throw new Error(`checkout ${sessionId} is ${object.status}`);
    const intent = object.payment_intent
      ? this.require<FakeIntent>(object.payment_intent).object
      : this.newIntent(scope, object);
    object.payment_intent = intent.id;
    const charge = this.newCharge(
      scope,
      intent,
      outcome === "success" ? "succeeded" : "failed",
      intent.amount,
    );
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
      if (options.captureBefore)
        charge.payment_method_details.card.capture_before = Math.floor(
          options.captureBefore.getTime() / 1000,
        );
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

  /** The payer tries to pay and the intent is left without the full hold (IncompleteOutcome). */
  leaveIncomplete(sessionId: string, outcome: IncompleteOutcome) {
    const { scope, object } = this.require<FakeSession & { intentData: Params }>(sessionId);
    if (object.status !== "open") throw new Error(`checkout ${sessionId} is ${object.status}`);
    const intent = object.payment_intent
      ? this.require<FakeIntent>(object.payment_intent).object
      : this.newIntent(scope, object);
    object.payment_intent = intent.id;
    intent.last_payment_error = null;
    if (outcome === "requires_action") {
      intent.status = "requires_action";
      this.emit(scope, "payment_intent.requires_action", intent);
      return;
    }
    const held = outcome === "processing" ? 0 : outcome.partialMinor;
    if (held < 0 || held >= intent.amount)
      throw new Error(`a partial hold is below ${intent.amount}`);
    this.newCharge(scope, intent, outcome === "processing" ? "pending" : "succeeded", held);
    if (outcome === "processing") {
      intent.status = "processing";
      this.emit(scope, "payment_intent.processing", intent);
    } else {
      Object.assign(intent, { status: "requires_capture", amount_capturable: held });
      this.emit(scope, "payment_intent.amount_capturable_updated", intent);
    }
    object.status = "complete";
    object.payment_status = "unpaid";
    this.emit(scope, "checkout.session.completed", publicView(object));
  }

  /**
   * The payer finishes 3-D Secure, or the processing payment is authorized: the intent holds the
   * full amount (`requires_capture`), and its session completes if it was still open.
   */
  finishAuthorization(intentId: string) {
    const { scope, object: intent } = this.require<FakeIntent>(intentId);
    if (intent.status !== "requires_action" && intent.status !== "processing")
      throw new Error(`${intentId} is ${intent.status}`);
    const charge = this.chargeOf(intent);
    if (charge) {
      Object.assign(charge, { status: "succeeded", paid: true, amount: intent.amount });
      charge.payment_method_details.card.capture_before = now() + CARD_AUTHORIZATION_SECONDS;
    } else this.newCharge(scope, intent, "succeeded", intent.amount);
    Object.assign(intent, { status: "requires_capture", amount_capturable: intent.amount });
    this.emit(scope, "payment_intent.amount_capturable_updated", intent);
    for (const stored of this.objects.values()) {
      const session = stored.object;
      if (session.object !== "checkout.session" || session.payment_intent !== intentId) continue;
      if (session.status !== "open") continue;
      session.status = "complete";
      this.emit(scope, "checkout.session.completed", publicView(session));
    }
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

  /** The platform can reach the account: it exists and its access was not revoked. */
  reachable(id: string): boolean {
    return this.accounts.has(id) && !this.revoked.has(id);
  }

  /**
   * The platform's access to a connected account ends (its owner disconnected the platform in
   * their dashboard, or the platform deauthorized it): Stripe emits
   * `account.application.deauthorized` on that account, and from then on answers the platform's
   * requests for it as for an account it cannot reach (403 account_invalid).
   */
  revokeAccess(id: string, application: { id: string; name: string }) {
    if (!this.reachable(id)) throw new Error(`${id} is not reachable`);
    this.revoked.add(id);
    this.emit(id, "account.application.deauthorized", {
      id: application.id,
      object: "application",
      name: application.name,
    });
  }

  /**
   * The card network refuses a refund after Stripe accepted it (a closed or expired card): the
   * latest succeeded refund of the intent becomes `failed`, its amount goes back off the charge's
   * `amount_refunded` (assumed to be Stripe's behaviour: the money returns to the balance), and
   * Stripe emits `charge.refund.updated` and `refund.failed`. Answers the refund's id.
   */
  failRefund(intentId: string, failureReason = "expired_or_canceled_card"): string {
    const { scope, object: intent } = this.require<FakeIntent>(intentId);
    const charge = this.chargeOf(intent);
    const refund = [...this.objects.values()]
      .map((stored) => stored.object)
      .filter(
        (o): o is FakeRefund =>
          o.object === "refund" && o.payment_intent === intentId && o.status === "succeeded",
      )
      .at(-1);
    if (!charge || !refund) throw new Error(`${intentId} has no succeeded refund`);
    Object.assign(refund, { status: "failed", failure_reason: failureReason });
    charge.amount_refunded -= refund.amount;
    charge.refunded = false;
    this.emit(scope, "charge.refund.updated", refund);
    this.emit(scope, "refund.failed", refund);
    return refund.id;
  }

  /** The owner finishes the hosted onboarding: Stripe has every detail and enables charges. */
  completeOnboarding(id: string) {
    this.updateAccount(id, { chargesEnabled: true, detailsSubmitted: true, requirementsDue: [] });
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

  // ---- shared by the API handlers (stripe-fake-api.ts) and the controls ----

  newIntent(scope: Scope, session: FakeSession & { intentData: Params }): FakeIntent {
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

  /** An uncaptured charge of `amount` on the intent (its latest). */
  newCharge(scope: Scope, intent: FakeIntent, status: FakeCharge["status"], amount: number) {
    const charge: FakeCharge = {
      id: fakeId("ch"),
      object: "charge",
      amount,
      amount_captured: 0,
      amount_refunded: 0,
      captured: false,
      refunded: false,
      paid: status === "succeeded",
      status,
      currency: intent.currency,
      payment_intent: intent.id,
      payment_method_details: {
        type: "card",
        card: {
          brand: "visa",
          last4: "4242",
          capture_before:
            status === "succeeded" && intent.capture_method === "manual"
              ? now() + CARD_AUTHORIZATION_SECONDS
              : null,
        },
      },
      created: now(),
      livemode: false,
    };
    this.objects.set(charge.id, { scope, object: charge });
    intent.latest_charge = charge.id;
    return charge;
  }

  cancelIntent(scope: Scope, intent: FakeIntent, reason: string | null) {
    Object.assign(intent, {
      status: "canceled",
      cancellation_reason: reason,
      canceled_at: now(),
      amount_capturable: 0,
    });
    this.emit(scope, "payment_intent.canceled", intent);
  }

  /** Objects are visible only in the account that holds them: elsewhere they do not exist. */
  find<T extends FakeObject>(scope: Scope, id: string, kind: T["object"]): T | null {
    const stored = this.objects.get(id);
    return stored && stored.scope === scope && stored.object.object === kind
      ? (stored.object as T)
      : null;
  }

  require<T extends FakeObject>(id: string): { scope: Scope; object: T } {
    const stored = this.objects.get(id);
    if (!stored) throw new Error(`the fake holds no ${id}`);
    return stored as { scope: Scope; object: T };
  }

  chargeOf(intent: FakeIntent): FakeCharge | null {
    return intent.latest_charge ? this.require<FakeCharge>(intent.latest_charge).object : null;
  }

  expanded(intent: FakeIntent, params: Params) {
    const expand = Array.isArray(params.expand) ? params.expand : [];
    const copy = structuredClone(intent) as Omit<FakeIntent, "latest_charge"> & {
      latest_charge: string | FakeCharge | null;
    };
    if (expand.includes("latest_charge") && intent.latest_charge) {
      copy.latest_charge = structuredClone(this.chargeOf(intent));
    }
    return copy;
  }

  /** called with every event as it is emitted (`deliverPlatformEvents`) */
  readonly listeners: ((event: FakeEvent) => void)[] = [];

  emit(scope: Scope, type: string, object: unknown) {
    const event: FakeEvent = {
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
    };
    this.events.push(event);
    for (const listener of this.listeners) listener(event);
  }
}

export function publicView(session: FakeSession): FakeSession {
  const { intentData: _hidden, ...rest } = session as FakeSession & { intentData?: Params };
  return structuredClone(rest);
}
