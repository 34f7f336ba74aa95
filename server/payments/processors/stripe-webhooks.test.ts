import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newKey } from "../../../testing/processor-behaviour";
import { startStripeFake, type FakeEvent, type StripeFake } from "../../../testing/stripe-fake";
import { createStripeProcessor, type StripeProcessor } from "./stripe";
import type { ParsedWebhook } from "./types";

// Connect webhook events as the fake builds and signs them (with the SDK's own test-header
// helper), verified by parseWebhook.
let fake: StripeFake;
let stripe: StripeProcessor;
let accountRef: string;

beforeAll(async () => {
  fake = await startStripeFake();
  stripe = createStripeProcessor({
    secretKey: fake.secretKey,
    connectWebhookSecret: fake.webhookSecret,
    apiUrl: fake.url,
  });
  ({ accountRef } = await stripe.createAccount({ idempotencyKey: newKey(), country: "US" }));
});

afterAll(async () => {
  await fake.close();
});

const merchant = () => ({ tenantId: 1, accountRef });

async function aCheckout(amountMinor = 3000) {
  return stripe.createCheckout({
    idempotencyKey: newKey(),
    account: merchant(),
    amountMinor,
    currency: "usd",
    description: "Charging session",
    metadata: {},
    successUrl: "https://cp.example.test/ok",
    cancelUrl: "https://cp.example.test/cancel",
  });
}

function parse(event: FakeEvent): ParsedWebhook {
  const { payload, signature } = fake.sign(event);
  return stripe.parseWebhook(payload, signature);
}

describe("card (Stripe): Connect webhook events", () => {
  it("verifies each event of a paid, captured and refunded checkout and names its account, checkout and intent", async () => {
    fake.updateAccount(accountRef, {
      chargesEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [],
    });
    const checkout = await aCheckout();
    fake.completeCheckout(checkout.checkoutRef, { decline: "insufficient_funds" });
    fake.completeCheckout(checkout.checkoutRef, "success");
    const { intentRef } = await stripe.readCheckout(checkout.checkoutRef, merchant());
    await stripe.capture({
      idempotencyKey: newKey(),
      account: merchant(),
      intentRef: intentRef as string,
      amountMinor: 1200,
    });
    await stripe.refund({
      idempotencyKey: newKey(),
      account: merchant(),
      intentRef: intentRef as string,
      amountMinor: 1200,
    });

    const parsed = fake.takeEvents().map(parse);
    const events = parsed.map((p) => (p.kind === "event" ? p.event : p));
    expect(events.map((e) => ("type" in e ? e.type : e))).toEqual([
      "account.updated",
      "payment_intent.payment_failed",
      "payment_intent.amount_capturable_updated",
      "checkout.session.completed",
      "payment_intent.succeeded",
      "charge.refunded",
    ]);
    for (const p of parsed) {
      if (p.kind !== "event") throw new Error(`not verified: ${JSON.stringify(p)}`);
      expect(p.event.account).toBe(accountRef);
      expect(p.event.id).toMatch(/^evt_/);
      expect(Math.abs(p.event.created.getTime() - Date.now())).toBeLessThan(60_000);
      if (p.event.type === "account.updated") {
        expect(p.event).toMatchObject({ objectId: accountRef, intentRef: null, checkoutRef: null });
      } else {
        expect(p.event.intentRef).toBe(intentRef);
      }
    }
    const completed = parsed.find(
      (p) => p.kind === "event" && p.event.type === "checkout.session.completed",
    );
    expect(completed).toMatchObject({
      event: { objectId: checkout.checkoutRef, checkoutRef: checkout.checkoutRef, intentRef },
    });
  });

  it("verifies expiry and cancellation events", async () => {
    const unpaid = await aCheckout();
    const held = await aCheckout();
    fake.completeCheckout(held.checkoutRef, "success");
    const { intentRef } = await stripe.readCheckout(held.checkoutRef, merchant());
    fake.takeEvents();
    fake.expireCheckout(unpaid.checkoutRef);
    fake.expireAuthorization(intentRef as string);
    const parsed = fake.takeEvents().map(parse);
    expect(parsed).toMatchObject([
      {
        kind: "event",
        event: {
          type: "checkout.session.expired",
          checkoutRef: unpaid.checkoutRef,
          intentRef: null,
        },
      },
      { kind: "event", event: { type: "payment_intent.canceled", objectId: intentRef, intentRef } },
    ]);
  });

  it("refuses what Stripe did not sign: a changed body, another secret, an old signature, no signature", () => {
    fake.updateAccount(accountRef, { chargesEnabled: true });
    const [event] = fake.takeEvents();
    if (!event) throw new Error("no event");
    const { payload, signature } = fake.sign(event);
    expect(stripe.parseWebhook(payload, signature).kind).toBe("event");

    const tampered = payload.replace(`"charges_enabled": true`, `"charges_enabled": false`);
    expect(tampered).not.toBe(payload);
    expect(stripe.parseWebhook(tampered, signature)).toMatchObject({ kind: "refused" });
    expect(stripe.parseWebhook(Buffer.from(payload), signature).kind).toBe("event");

    const otherSecret = fake.sign(event, { secret: "whsec_someone_else" });
    expect(stripe.parseWebhook(otherSecret.payload, otherSecret.signature)).toMatchObject({
      kind: "refused",
    });

    const old = fake.sign(event, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(stripe.parseWebhook(old.payload, old.signature)).toMatchObject({
      kind: "refused",
      reason: expect.stringMatching(/tolerance/i),
    });
    expect(stripe.parseWebhook(payload, null)).toMatchObject({ kind: "refused" });

    const noSecret = createStripeProcessor({
      secretKey: fake.secretKey,
      connectWebhookSecret: null,
      apiUrl: fake.url,
    });
    expect(noSecret.parseWebhook(payload, signature)).toEqual({
      kind: "refused",
      reason: "STRIPE_CONNECT_WEBHOOK_SECRET is not set",
    });
  });

  it("acknowledges a genuine event of a type nobody acts on, and refuses a signed body that is no event", () => {
    const other = { ...fake.events()[0], id: "evt_other", type: "customer.created" } as FakeEvent;
    expect(parse(other)).toEqual({ kind: "ignored", id: "evt_other", type: "customer.created" });
    const notAnEvent = fake.sign({ hello: "world" } as unknown as FakeEvent);
    expect(stripe.parseWebhook(notAnEvent.payload, notAnEvent.signature)).toMatchObject({
      kind: "refused",
    });
  });

  it("delivers events to a receiver over HTTP, twice and out of order on request, each verifiable", async () => {
    const received: ParsedWebhook[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const parsed = stripe.parseWebhook(
          Buffer.concat(chunks),
          req.headers["stripe-signature"] as string,
        );
        received.push(parsed);
        res.writeHead(parsed.kind === "refused" ? 400 : 200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/stripe/webhook`;
      const checkout = await aCheckout();
      fake.takeEvents();
      fake.completeCheckout(checkout.checkoutRef, "success");
      const events = fake.takeEvents();
      const statuses = await fake.deliver(url, events, { times: 2, reversed: true });
      expect(statuses.map((s) => s.status)).toEqual([200, 200, 200, 200]);
      const ids = received.map((p) => (p.kind === "event" ? p.event.id : p.kind));
      const [first, second] = events.map((e) => e.id);
      expect(ids).toEqual([second, second, first, first]);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
