import {
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
  type FakeIntent,
  type FakeRefund,
  type FakeSession,
  type Params,
  type Scope,
} from "./stripe-fake-objects";
import { CANCELABLE, publicView, type FakeStripeState } from "./stripe-fake-state";

/**
 * The Stripe fake's API handlers: one per endpoint, acting on the state in the account `scope`
 * (the Stripe-Account header, or `platform`). Test code; see stripe-fake.ts for what is covered.
 */

export function createAccount(state: FakeStripeState, params: Params): Answer {
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
  state.accounts.set(account.id, account);
  return { status: 200, body: account, store: true };
}

export function readAccount(state: FakeStripeState, id: string): Answer {
  const account = state.reachable(id) ? state.accounts.get(id) : undefined;
  return account ? { status: 200, body: account, store: true } : accountInvalid(id);
}

/**
 * POST /oauth/deauthorize (connect.stripe.com; the SDK sends it to the configured host): the
 * platform's `client_id` and the account (`stripe_user_id`). Answers `{ stripe_user_id }` and
 * revokes the platform's access; an account it cannot reach, or another client id, is Stripe's
 * OAuth error shape (`{ error, error_description }`, 401 invalid_client). Not modelled: whether
 * Stripe refuses this for an account the platform created with the Accounts API (the fake
 * deauthorizes every account the platform reaches).
 */
export function deauthorize(
  state: FakeStripeState,
  application: { id: string; name: string },
  params: Params,
): Answer {
  const id = typeof params.stripe_user_id === "string" ? params.stripe_user_id : "";
  if (params.client_id !== application.id) {
    return oauthError(401, "invalid_client", `No such application: '${String(params.client_id)}'`);
  }
  if (!state.reachable(id)) {
    return oauthError(
      401,
      "invalid_client",
      `This application is not connected to stripe account ${id}, or that account does not exist.`,
    );
  }
  state.revokeAccess(id, application);
  return { status: 200, body: { stripe_user_id: id }, store: true };
}

const oauthError = (status: number, error: string, description: string): Answer => ({
  status,
  body: { error, error_description: description },
  store: true,
});

export function createAccountLink(state: FakeStripeState, params: Params): Answer {
  for (const name of ["account", "refresh_url", "return_url", "type"]) {
    if (typeof params[name] !== "string") return missing(name);
  }
  const id = params.account as string;
  if (!state.reachable(id)) return accountInvalid(id);
  if (params.type !== "account_onboarding") {
    return invalidParam("type", "the fake supports type=account_onboarding");
  }
  const linkId = fakeId("link");
  const expiresAt = now() + 300;
  state.accountLinks.set(linkId, {
    account: id,
    returnUrl: params.return_url as string,
    refreshUrl: params.refresh_url as string,
    expiresAt,
    visited: false,
  });
  const body = {
    object: "account_link",
    created: now(),
    expires_at: expiresAt,
    url: `${state.origin()}/setup/s/${id}/${linkId}`,
  };
  return { status: 200, body, store: true };
}

export function createSession(state: FakeStripeState, scope: Scope, params: Params): Answer {
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
  session.url = `${state.origin()}/c/pay/${session.id}`;
  state.objects.set(session.id, { scope, object: session });
  return { status: 200, body: publicView(session), store: true };
}

export function readSession(state: FakeStripeState, scope: Scope, id: string): Answer {
  const session = state.find<FakeSession>(scope, id, "checkout.session");
  return session ? ok(publicView(session)) : noSuch("checkout.session", id);
}

export function readIntent(
  state: FakeStripeState,
  scope: Scope,
  id: string,
  params: Params,
): Answer {
  const intent = state.find<FakeIntent>(scope, id, "payment_intent");
  return intent ? ok(state.expanded(intent, params)) : noSuch("payment_intent", id);
}

export function capture(state: FakeStripeState, scope: Scope, id: string, params: Params): Answer {
  const intent = state.find<FakeIntent>(scope, id, "payment_intent");
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
  const charge = state.chargeOf(intent);
  intent.status = "succeeded";
  intent.amount_received = amount;
  intent.amount_capturable = 0;
  if (charge) Object.assign(charge, { captured: true, amount_captured: amount });
  state.captures.push({ intent: intent.id, amount });
  state.emit(scope, "payment_intent.succeeded", intent);
  return ok(state.expanded(intent, params));
}

export function cancel(state: FakeStripeState, scope: Scope, id: string, params: Params): Answer {
  const intent = state.find<FakeIntent>(scope, id, "payment_intent");
  if (!intent) return noSuch("payment_intent", id);
  if (!CANCELABLE.includes(intent.status)) {
    return unexpectedState(
      `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(", ")}.`,
    );
  }
  const reason = typeof params.cancellation_reason === "string" ? params.cancellation_reason : null;
  state.cancelIntent(scope, intent, reason);
  return ok(state.expanded(intent, params));
}

export function refund(state: FakeStripeState, scope: Scope, params: Params): Answer {
  if (typeof params.payment_intent !== "string") return missing("payment_intent");
  const intent = state.find<FakeIntent>(scope, params.payment_intent, "payment_intent");
  if (!intent) return noSuch("payment_intent", params.payment_intent);
  const charge = state.chargeOf(intent);
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
    failure_reason: null,
    reason: typeof params.reason === "string" ? params.reason : null,
    created: now(),
  };
  state.objects.set(refund.id, { scope, object: refund });
  charge.amount_refunded += amount;
  charge.refunded = charge.amount_refunded === charge.amount_captured;
  state.emit(scope, "charge.refunded", charge);
  return ok(refund);
}

export function readRefund(state: FakeStripeState, scope: Scope, id: string): Answer {
  const refund = state.find<FakeRefund>(scope, id, "refund");
  return refund ? ok(refund) : noSuch("refund", id);
}

const ok = (body: unknown): Answer => ({ status: 200, body, store: true });

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
