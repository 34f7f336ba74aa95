import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newKey } from "../../../testing/processor-behaviour";
import { startStripeFake, type StripeFake } from "../../../testing/stripe-fake";

// The processors as the product builds them: from the process's configuration alone.
let fake: StripeFake;

beforeAll(async () => {
  fake = await startStripeFake();
  // before anything in this process reads the configuration (it is read once)
  process.env.STRIPE_SECRET_KEY = fake.secretKey;
  process.env.STRIPE_CONNECT_WEBHOOK_SECRET = fake.webhookSecret;
  process.env.STRIPE_API_URL = fake.url;
  process.env.PUBLIC_BASE_URL = "https://cp.example.test";
});

afterAll(async () => {
  await fake.close();
});

describe("payment processors from the configuration", () => {
  it("sends card calls to STRIPE_API_URL with STRIPE_SECRET_KEY, and verifies with the webhook secret", async () => {
    const { paymentProcessor, cardProcessor } = await import("./index");
    expect(paymentProcessor("card")).toBe(cardProcessor());
    const { accountRef } = await cardProcessor().createAccount({
      idempotencyKey: newKey(),
      country: "US",
    });
    expect(fake.accountIds()).toContain(accountRef);
    fake.updateAccount(accountRef, { chargesEnabled: true });
    const [event] = fake.takeEvents();
    if (!event) throw new Error("no event");
    const { payload, signature } = fake.sign(event);
    expect(cardProcessor().parseWebhook(payload, signature)).toMatchObject({
      kind: "event",
      event: { type: "account.updated", account: accountRef },
    });
  });

  it("puts the simulator's hosted checkout under PUBLIC_BASE_URL", async () => {
    const { paymentProcessor } = await import("./index");
    const simulator = paymentProcessor("simulator");
    expect(simulator.service).toBe("simulator");
    const checkout = await simulator.createCheckout({
      idempotencyKey: newKey(),
      account: { tenantId: 1, accountRef: null },
      amountMinor: 500,
      currency: "usd",
      description: "Charging session",
      metadata: {},
      successUrl: "https://cp.example.test/ok",
      cancelUrl: "https://cp.example.test/cancel",
    });
    expect(checkout.checkoutUrl).toMatch(
      /^https:\/\/cp\.example\.test\/pay\/simulator\/[A-Za-z0-9]{32}$/,
    );
  });
});
