/**
 * A stateful fake of the slice of Stripe's REST API the `card` processor uses, served over real
 * HTTP (node:http) so the real `stripe` SDK drives it through its host/port/protocol options.
 * Test code only.
 *
 * What it covers, as Stripe documents it:
 * - POST /v1/accounts, GET /v1/accounts/:id, POST /v1/account_links, and Connect's OAuth
 *   POST /oauth/deauthorize (on connect.stripe.com at Stripe; the SDK sends it to the configured
 *   host); an account whose platform access was revoked (revokeAccess, or deauthorize) answers as
 *   one the platform cannot reach, after `account.application.deauthorized`;
 * - POST /v1/checkout/sessions (mode=payment, price_data line items), GET /v1/checkout/sessions/:id;
 * - GET /v1/payment_intents/:id (expand[]=latest_charge), POST …/capture (amount_to_capture),
 *   POST …/cancel, POST /v1/refunds (payment_intent, amount), GET /v1/refunds/:id; a charge's
 *   `payment_method_details.card.capture_before` (the authorization's deadline), and refunds
 *   that fail after they succeeded (failRefund: `charge.refund.updated`, `refund.failed`);
 * - form-encoded bodies, JSON answers in Stripe's shapes, errors as
 *   `{ error: { type, code, message, param?, decline_code? } }` with Stripe's statuses (400, 401,
 *   402, 403, 404, 409, 429, 500);
 * - `Authorization: Bearer <secret key>` (another key is 401);
 * - `Stripe-Account`: objects live in the connected account that created them; from any other
 *   account (or the platform) they are 404 resource_missing; an unknown account is 403
 *   account_invalid;
 * - `Idempotency-Key` on POST, scoped per account: the first result of an endpoint that began
 *   executing is stored (successes, 4xx decided by the endpoint, and 500s) and replayed for the
 *   same key and parameters with `Idempotent-Replayed: true`; different parameters or another
 *   endpoint is 400 idempotency_error; a request while the first is still running is 409;
 *   refusals before execution (authentication, missing parameters, 429) are not stored;
 * - Connect events for every change, signed with the SDK's own generateTestHeaderString;
 * - Account Links' hosted onboarding for browsers (stripe-fake-onboarding.ts): single-use links
 *   whose page finishes onboarding and sends the person to `return_url`, and a visited or
 *   expired link sends them to `refresh_url`.
 *
 * - team billing on the platform account (stripe-fake-billing.ts): Customers, Checkout Sessions in
 *   setup mode, SetupIntents, PaymentMethods (card, us_bank_account) and detaching them,
 *   Subscriptions, Billing meter events and Invoices, with controls for the person on the setup
 *   page and for invoices opened, failing and paid; platform events (no `account`). Its hosted
 *   setup and invoice pages are served to browsers, and its controls over HTTP to other
 *   processes (stripe-fake-billing-pages.ts); `deliverPlatformEvents` acts as a webhook endpoint.
 *
 * What it does not: any other endpoint or parameter (for card payments: price ids, customers,
 * other payment methods; tax, application fees, 3-D Secure itself: only the state an unfinished one leaves, with
 * no `next_action`), list endpoints, expansion other than
 * latest_charge, minimum capture amounts, the charge-level fields Stripe sets when a hold is
 * released or partially captured (the fake leaves amount_refunded to refunds alone), API
 * versions, and pagination. The hosted checkout page is not served: tests act as the customer with
 * completeCheckout, leaveIncomplete (3-D Secure unfinished, a payment processing, a partial hold;
 * its comment says which of these Stripe's Checkout really produces) and finishAuthorization.
 * Onboarding asks for nothing: finishing it enables charges at once. Decline reasons and messages are a small table (stripe-fake-objects.ts).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { fakeId, fingerprint, parseForm, type Answer, type Params } from "./stripe-fake-objects";
import * as api from "./stripe-fake-api";
import { ONBOARDING_PATH, serveOnboarding } from "./stripe-fake-onboarding";
import { FakeStripeState, type FakeEvent } from "./stripe-fake-state";
import { FakeBilling } from "./stripe-fake-billing";
import {
  BILLING_CONTROL_PATH,
  BILLING_PAGE_PATH,
  serveBillingControl,
  serveBillingPage,
} from "./stripe-fake-billing-pages";

export type { CardOutcome, FakeEvent, IncompleteOutcome } from "./stripe-fake-state";
export type { MeterEvent, SetupOutcome } from "./stripe-fake-billing";

export type Fault =
  /** the endpoint fails with 500 before changing anything; Stripe stores that 500 for the key */
  | { kind: "error500" }
  /** 429 before anything runs (not stored): asking again with the same key is the remedy */
  | { kind: "rate_limit" }
  /**
   * no answer and nothing applied or stored, until the caller gives up (its timeout): a request
   * lost on the way to Stripe, or Stripe too slow to take it. Asking again with the same key acts.
   */
  | { kind: "stall_before_apply" }
  /** held for `ms` (past the client's timeout), then applied and stored: the answer goes nowhere */
  | { kind: "hang"; ms: number }
  /**
   * applied (or replayed) and stored, then the connection is cut before the answer: "Stripe did
   * it, we never heard". The SDK itself retries a reset connection once with the same key, so a
   * lost answer the caller sees takes two of these.
   */
  | { kind: "reset_after_apply" }
  /**
   * applied (or replayed) and stored, then no answer at all until the caller goes away (its
   * process killed mid-wait, or its timeout): "Stripe did it, the caller died before hearing".
   */
  | { kind: "stall_after_apply" };

export type RecordedRequest = {
  method: string;
  path: string;
  account: string | null;
  idempotencyKey: string | null;
  params: Params;
  status: number | "reset" | "stalled";
  replayed: boolean;
};

type Route = {
  method: "GET" | "POST";
  pattern: RegExp;
  /** `scope` is the Stripe-Account header's account, or `platform` */
  run: (scope: string, match: string[], params: Params) => Answer;
};

type StoredResult = { state: "running" } | { state: "done"; print: string; answer: Answer };

export type StripeFake = Awaited<ReturnType<typeof startStripeFake>>;

export async function startStripeFake(
  options: { secretKey?: string; webhookSecret?: string; clientId?: string } = {},
) {
  const secretKey = options.secretKey ?? `sk_test_${fakeId("fake")}`;
  const webhookSecret = options.webhookSecret ?? `whsec_${fakeId("fake")}`;
  /** the platform's Connect application (its OAuth `client_id`) */
  const application = { id: options.clientId ?? fakeId("ca"), name: "Charge Cloud (test)" };
  let origin = "";
  const state = new FakeStripeState(() => origin);
  const billing = new FakeBilling(state);
  const requests: RecordedRequest[] = [];
  const results = new Map<string, StoredResult>();
  const faults: { method: string; path: string | RegExp; fault: Fault; left: number }[] = [];
  const inFlight = new Set<Promise<void>>();
  let eventsTaken = 0;

  const routes: Route[] = [
    {
      method: "POST",
      pattern: /^\/v1\/accounts$/,
      run: (_s, _m, p) => api.createAccount(state, p),
    },
    {
      method: "GET",
      pattern: /^\/v1\/accounts\/([^/]+)$/,
      run: (s, [id = ""]) =>
        s === "platform" || s === id ? api.readAccount(state, id) : api.accountInvalid(id),
    },
    {
      method: "POST",
      pattern: /^\/v1\/account_links$/,
      run: (_s, _m, p) => api.createAccountLink(state, p),
    },
    {
      method: "POST",
      pattern: /^\/v1\/checkout\/sessions$/,
      run: (s, _m, p) =>
        p.mode === "setup" ? billing.createSetupSession(s, p) : api.createSession(state, s, p),
    },
    {
      method: "GET",
      pattern: /^\/v1\/checkout\/sessions\/([^/]+)$/,
      run: (s, [id = ""]) =>
        s === "platform" && billing.hasSession(id)
          ? billing.readSession(id)
          : api.readSession(state, s, id),
    },
    // team billing: the platform's own objects (stripe-fake-billing.ts)
    {
      method: "POST",
      pattern: /^\/v1\/customers$/,
      run: (s, _m, p) => billing.createCustomer(s, p),
    },
    {
      method: "GET",
      pattern: /^\/v1\/customers\/([^/]+)$/,
      run: (_s, [id = ""]) => billing.readCustomer(id),
    },
    {
      method: "POST",
      pattern: /^\/v1\/customers\/([^/]+)$/,
      run: (_s, [id = ""], p) => billing.updateCustomer(id, p),
    },
    {
      method: "GET",
      pattern: /^\/v1\/setup_intents\/([^/]+)$/,
      run: (_s, [id = ""], p) => billing.readSetupIntent(id, p),
    },
    {
      method: "POST",
      pattern: /^\/v1\/payment_methods\/([^/]+)\/detach$/,
      run: (_s, [id = ""]) => billing.detachMethod(id),
    },
    {
      method: "POST",
      pattern: /^\/v1\/subscriptions$/,
      run: (s, _m, p) => billing.createSubscription(s, p),
    },
    {
      method: "POST",
      pattern: /^\/v1\/subscriptions\/([^/]+)$/,
      run: (_s, [id = ""], p) => billing.updateSubscription(id, p),
    },
    {
      method: "POST",
      pattern: /^\/v1\/billing\/meter_events$/,
      run: (s, _m, p) => billing.createMeterEvent(s, p),
    },
    {
      method: "GET",
      pattern: /^\/v1\/invoices\/([^/]+)$/,
      run: (_s, [id = ""]) => billing.readInvoice(id),
    },
    {
      method: "GET",
      pattern: /^\/v1\/payment_intents\/([^/]+)$/,
      run: (s, [id = ""], p) => api.readIntent(state, s, id, p),
    },
    {
      method: "POST",
      pattern: /^\/v1\/payment_intents\/([^/]+)\/capture$/,
      run: (s, [id = ""], p) => api.capture(state, s, id, p),
    },
    {
      method: "POST",
      pattern: /^\/v1\/payment_intents\/([^/]+)\/cancel$/,
      run: (s, [id = ""], p) => api.cancel(state, s, id, p),
    },
    {
      method: "POST",
      pattern: /^\/oauth\/deauthorize$/,
      run: (_s, _m, p) => api.deauthorize(state, application, p),
    },
    { method: "POST", pattern: /^\/v1\/refunds$/, run: (s, _m, p) => api.refund(state, s, p) },
    {
      method: "GET",
      pattern: /^\/v1\/refunds\/([^/]+)$/,
      run: (s, [id = ""]) => api.readRefund(state, s, id),
    },
  ];

  function takeFault(method: string, path: string): Fault | null {
    const found = faults.find(
      (f) =>
        f.left > 0 &&
        f.method === method &&
        (typeof f.path === "string" ? f.path === path : f.path.test(path)),
    );
    if (!found) return null;
    found.left -= 1;
    return found.fault;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://fake");
    const method = req.method ?? "GET";
    const params = parseForm(
      method === "GET" ? url.search.slice(1) : Buffer.concat(chunks).toString(),
    );
    if (ONBOARDING_PATH.test(url.pathname)) {
      serveOnboarding(state, state.accountLinks, req, res, url.pathname);
      return;
    }
    if (BILLING_PAGE_PATH.test(url.pathname)) {
      serveBillingPage(billing, req, res, url.pathname, Buffer.concat(chunks).toString());
      return;
    }
    if (BILLING_CONTROL_PATH.test(url.pathname) && method === "POST") {
      if (header(req, "authorization") !== `Bearer ${secretKey}`) {
        res.writeHead(401);
        res.end();
        return;
      }
      serveBillingControl(billing, res, url.pathname, Buffer.concat(chunks).toString());
      return;
    }
    const account = header(req, "stripe-account");
    const key = header(req, "idempotency-key");
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      account,
      idempotencyKey: key,
      params,
      status: 0,
      replayed: false,
    };
    requests.push(record);
    const send = (answer: { status: number; body: unknown }, replayed = false) => {
      record.status = answer.status;
      record.replayed = replayed;
      if (res.destroyed) return;
      res.writeHead(answer.status, {
        "content-type": "application/json",
        "request-id": fakeId("req"),
        "stripe-version": Stripe.API_VERSION,
        ...(account && { "stripe-account": account }),
        ...(key && { "idempotency-key": key }),
        ...(replayed && { "idempotent-replayed": "true" }),
      });
      res.end(JSON.stringify(answer.body));
    };

    if (header(req, "authorization") !== `Bearer ${secretKey}`) {
      return send({
        status: 401,
        body: { error: { type: "invalid_request_error", message: "Invalid API Key provided" } },
      });
    }
    if (account && !state.reachable(account)) return send(api.accountInvalid(account));
    const route = routes.find((r) => r.method === method && r.pattern.test(url.pathname));
    if (!route) {
      return send({
        status: 404,
        body: {
          error: {
            type: "invalid_request_error",
            message: `Unrecognized request URL (${method}: ${url.pathname}).`,
          },
        },
      });
    }
    const fault = takeFault(method, url.pathname);
    if (fault?.kind === "stall_before_apply") {
      record.status = "stalled";
      return; // the response stays open and silent: closed by the caller, or by close()
    }
    if (fault?.kind === "rate_limit") {
      return send({
        status: 429,
        body: {
          error: {
            type: "invalid_request_error",
            code: "rate_limit",
            message: "Too many requests hit the API too quickly.",
          },
        },
      });
    }
    // Whatever the fake answers from here on, a reset fault cuts the connection instead, and a
    // stall leaves it open and silent (closed by the caller, or by close()).
    const finish = (answer: { status: number; body: unknown }, replayed = false) => {
      if (fault?.kind === "stall_after_apply") {
        Object.assign(record, { status: "stalled", replayed });
        return;
      }
      if (fault?.kind !== "reset_after_apply") return send(answer, replayed);
      Object.assign(record, { status: "reset", replayed });
      res.socket?.destroy();
    };
    const scope = account ?? "platform";
    const slot = method === "POST" && key ? `${scope}\u0000${key}` : null;
    const print = fingerprint(method, url.pathname, params);
    if (slot) {
      const stored = results.get(slot);
      if (stored?.state === "running") {
        return finish({
          status: 409,
          body: {
            error: {
              type: "idempotency_error",
              message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
            },
          },
        });
      }
      if (stored?.state === "done") {
        if (stored.print !== print) {
          return finish({
            status: 400,
            body: {
              error: {
                type: "idempotency_error",
                message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
              },
            },
          });
        }
        return finish(stored.answer, true);
      }
      results.set(slot, { state: "running" });
    }
    if (fault?.kind === "hang") await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const answer: Answer =
      fault?.kind === "error500"
        ? {
            status: 500,
            body: { error: { type: "api_error", message: "An unknown error occurred." } },
            store: true,
          }
        : route.run(scope, route.pattern.exec(url.pathname)?.slice(1) ?? [], params);
    if (slot) {
      if (answer.store) results.set(slot, { state: "done", print, answer });
      else results.delete(slot);
    }
    finish(answer);
  }

  const server = http.createServer((req, res) => {
    const done = handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { type: "api_error", message: String(error) } }));
      }
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function sign(event: FakeEvent, opts: { secret?: string; timestamp?: number } = {}) {
    const payload = JSON.stringify(event, null, 2);
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: opts.secret ?? webhookSecret,
      ...(opts.timestamp !== undefined && { timestamp: opts.timestamp }),
    });
    return { payload, signature };
  }

  return {
    /** the STRIPE_API_URL to give the processor */
    url: origin,
    secretKey,
    webhookSecret,
    /** the platform's Connect client id (`ca_…`), for OAuth deauthorize */
    clientId: application.id,
    requests,
    /** captures the fake applied, in order (a replay adds none) */
    captures: state.captures,
    accountIds: () => [...state.accounts.keys()],

    count: state.count.bind(state),
    completeCheckout: state.completeCheckout.bind(state),
    leaveIncomplete: state.leaveIncomplete.bind(state),
    finishAuthorization: state.finishAuthorization.bind(state),
    expireCheckout: state.expireCheckout.bind(state),
    expireAuthorization: state.expireAuthorization.bind(state),
    failRefund: state.failRefund.bind(state),
    updateAccount: state.updateAccount.bind(state),
    completeOnboarding: state.completeOnboarding.bind(state),
    /** team billing's objects and controls (stripe-fake-billing.ts) */
    billing,
    /** the account's owner removes the platform in their dashboard */
    revokeAccess: (id: string) => state.revokeAccess(id, application),

    /**
     * From now on, Stripe delivers each platform event (no `account`) whose type starts with one
     * of `prefixes` to `url` as a webhook endpoint of the platform's own account: signed, in the
     * order emitted, each until the receiver answers 2xx (up to 5 tries, 500 ms apart). For
     * tests in another process than the fake (e2e), which cannot call `deliver` themselves.
     */
    deliverPlatformEvents(url: string, prefixes: string[] = ["invoice."]) {
      let chain = Promise.resolve();
      state.listeners.push((event) => {
        if (event.account || !prefixes.some((p) => event.type.startsWith(p))) return;
        const { payload, signature } = sign(event);
        const send = async () => {
          for (let attempt = 0; attempt < 5; attempt++) {
            try {
              const res = await fetch(url, {
                method: "POST",
                headers: { "content-type": "application/json", "stripe-signature": signature },
                body: payload,
              });
              await res.arrayBuffer();
              if (res.ok) return;
            } catch {
              /* the receiver is down: Stripe tries again */
            }
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        };
        chain = chain.then(send);
        const done = chain;
        inFlight.add(done);
        void done.finally(() => inFlight.delete(done));
      });
    },
    /** the next `times` requests to `method path` meet `fault` (path: exact, or a pattern) */
    injectFault(method: "GET" | "POST", path: string | RegExp, fault: Fault, times = 1) {
      faults.push({ method, path, fault, left: times });
    },
    /** Stripe forgets the stored result of a key (it keeps one 24 hours) */
    forgetKey(key: string, account = "platform") {
      results.delete(`${account}\u0000${key}`);
    },
    /** no fault injected so far applies any more */
    clearFaults() {
      faults.length = 0;
    },
    /** resolves when every request received so far has been applied (hung ones included) */
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },

    /** every event so far */
    events: (): FakeEvent[] => [...state.events],
    /** events since the last call */
    takeEvents(): FakeEvent[] {
      const fresh = state.events.slice(eventsTaken);
      eventsTaken = state.events.length;
      return fresh;
    },
    sign,
    /**
     * POSTs events to a receiver as Stripe delivers them (JSON body, Stripe-Signature header),
     * each `times` times, in order or reversed; answers the receiver's statuses.
     */
    async deliver(
      url: string,
      events: FakeEvent[],
      opts: { times?: number; reversed?: boolean } = {},
    ): Promise<{ id: string; status: number }[]> {
      const order = opts.reversed ? [...events].reverse() : events;
      const statuses: { id: string; status: number }[] = [];
      for (const event of order) {
        for (let i = 0; i < (opts.times ?? 1); i++) {
          const { payload, signature } = sign(event);
          const res = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", "stripe-signature": signature },
            body: payload,
          });
          await res.arrayBuffer();
          statuses.push({ id: event.id, status: res.status });
        }
      }
      return statuses;
    },

    async close() {
      await Promise.allSettled([...inFlight]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function header(req: http.IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === "string" && value !== "" ? value : null;
}
