import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  describeProcessorBehaviour,
  expectRefusal,
  newKey,
} from "../../../testing/processor-behaviour";
import { startStripeFake, type StripeFake } from "../../../testing/stripe-fake";
import { createStripeProcessor, type StripeProcessor } from "./stripe";
import type { MerchantAccount } from "./types";

// The real `stripe` SDK, through stripe.ts, against the local Stripe fake over HTTP.
let fake: StripeFake;
let stripe: StripeProcessor;
let merchant: MerchantAccount;
let otherMerchant: MerchantAccount;

const processorFor = (timeoutMs = 5000) =>
  createStripeProcessor({
    secretKey: fake.secretKey,
    connectWebhookSecret: fake.webhookSecret,
    apiUrl: fake.url,
    timeoutMs,
  });

/** a connected account that can take charges */
async function aConnectedAccount(): Promise<MerchantAccount> {
  const { accountRef } = await stripe.createAccount({ idempotencyKey: newKey(), country: "US" });
  fake.updateAccount(accountRef, {
    chargesEnabled: true,
    detailsSubmitted: true,
    requirementsDue: [],
  });
  return { tenantId: 1, accountRef };
}

beforeAll(async () => {
  fake = await startStripeFake();
  stripe = processorFor();
  merchant = await aConnectedAccount();
  otherMerchant = await aConnectedAccount();
});

afterAll(async () => {
  await fake.close();
});

describeProcessorBehaviour("card (Stripe)", () => ({
  processor: stripe,
  account: merchant,
  otherAccount: otherMerchant,
  pay: (checkout, outcome) => fake.completeCheckout(checkout.checkoutRef, outcome),
  expireCheckout: (checkout) => fake.expireCheckout(checkout.checkoutRef),
  expireAuthorization: (intentRef) => fake.expireAuthorization(intentRef),
}));

async function anAuthorizedIntent(amountMinor = 5000) {
  const checkout = await stripe.createCheckout({
    idempotencyKey: newKey(),
    account: merchant,
    amountMinor,
    currency: "usd",
    description: "Charging session",
    metadata: { payment_id: "pay_1" },
    successUrl: "https://cp.example.test/ok",
    cancelUrl: "https://cp.example.test/cancel",
  });
  fake.completeCheckout(checkout.checkoutRef, "success");
  const { intentRef } = await stripe.readCheckout(checkout.checkoutRef, merchant);
  return { checkout, intentRef: intentRef as string };
}

describe("card (Stripe): what goes over the wire", () => {
  it("creates a payment-mode Checkout Session with manual capture on the connected account, with our key", async () => {
    const key = newKey();
    const checkout = await stripe.createCheckout({
      idempotencyKey: key,
      account: merchant,
      amountMinor: 4200,
      currency: "usd",
      description: "Charging at Depot",
      metadata: { payment_id: "pay_x", bill_id: "bill_y" },
      successUrl: "https://cp.example.test/ok",
      cancelUrl: "https://cp.example.test/cancel",
    });
    expect(checkout.intentRef).toBeNull(); // Stripe creates the intent when the payer pays
    const sent = fake.requests.find(
      (r) => r.path === "/v1/checkout/sessions" && r.idempotencyKey === key,
    );
    expect(sent).toMatchObject({ method: "POST", account: merchant.accountRef });
    expect(sent?.params).toMatchObject({
      mode: "payment",
      line_items: [{ quantity: "1", price_data: { currency: "usd", unit_amount: "4200" } }],
      payment_intent_data: {
        capture_method: "manual",
        metadata: { payment_id: "pay_x", bill_id: "bill_y" },
      },
      success_url: "https://cp.example.test/ok",
      cancel_url: "https://cp.example.test/cancel",
    });
  });

  it("captures, cancels and refunds on the same PaymentIntent in the connected account, each with our key", async () => {
    const { intentRef } = await anAuthorizedIntent();
    const captureKey = newKey();
    await stripe.capture({
      idempotencyKey: captureKey,
      account: merchant,
      intentRef,
      amountMinor: 777,
    });
    const refundKey = newKey();
    await stripe.refund({
      idempotencyKey: refundKey,
      account: merchant,
      intentRef,
      amountMinor: 777,
    });
    expect(fake.requests.find((r) => r.idempotencyKey === captureKey)).toMatchObject({
      path: `/v1/payment_intents/${intentRef}/capture`,
      account: merchant.accountRef,
      params: { amount_to_capture: "777" },
    });
    expect(fake.requests.find((r) => r.idempotencyKey === refundKey)).toMatchObject({
      path: "/v1/refunds",
      account: merchant.accountRef,
      params: { payment_intent: intentRef, amount: "777" },
    });

    const other = await anAuthorizedIntent();
    const cancelKey = newKey();
    await stripe.cancel({
      idempotencyKey: cancelKey,
      account: merchant,
      intentRef: other.intentRef,
    });
    expect(fake.requests.find((r) => r.idempotencyKey === cancelKey)).toMatchObject({
      path: `/v1/payment_intents/${other.intentRef}/cancel`,
      account: merchant.accountRef,
    });
  });

  it("refuses a merchant without a connected account before sending anything", async () => {
    const before = fake.requests.length;
    await expectRefusal(stripe.readIntent("pi_x", { tenantId: 1, accountRef: null }), "invalid");
    expect(fake.requests.length).toBe(before);
  });

  it("is unavailable without a secret key, and when Stripe refuses the key", async () => {
    const off = createStripeProcessor({
      secretKey: null,
      connectWebhookSecret: null,
      apiUrl: fake.url,
    });
    expect(off.availability()).toEqual({
      available: false,
      reason: expect.stringContaining("STRIPE_SECRET_KEY"),
    });
    const error = await expectRefusal(off.readIntent("pi_x", merchant), "unavailable");
    expect(error.message).toMatch(/STRIPE_SECRET_KEY/);
    expect(stripe.availability()).toEqual({ available: true });

    const wrongKey = createStripeProcessor({
      secretKey: "sk_test_not_the_platforms",
      connectWebhookSecret: null,
      apiUrl: fake.url,
    });
    await expectRefusal(wrongKey.readIntent("pi_x", merchant), "unavailable");
  });
});

describe("card (Stripe): connected accounts", () => {
  it("creates an account, links to onboarding, and reads what Stripe still needs", async () => {
    const key = newKey();
    const { accountRef } = await stripe.createAccount({
      idempotencyKey: key,
      email: "ops@example.test",
      country: "US",
    });
    expect(accountRef).toMatch(/^acct_/);
    // the same key replays the same account: a retried connect never makes two
    expect(
      await stripe.createAccount({ idempotencyKey: key, email: "ops@example.test", country: "US" }),
    ).toEqual({
      accountRef,
      chargesEnabled: false,
      detailsSubmitted: false,
      requirementsDue: ["business_profile.url", "external_account", "tos_acceptance.date"],
    });

    const fresh = await stripe.readAccount(accountRef);
    expect(fresh.chargesEnabled).toBe(false);
    expect(fresh.detailsSubmitted).toBe(false);
    expect(fresh.requirementsDue).toContain("external_account");

    const link = await stripe.onboardingLink({
      accountRef,
      refreshUrl: "https://cp.example.test/settings/payments/refresh",
      returnUrl: "https://cp.example.test/settings/payments/return",
    });
    expect(new URL(link.url).pathname).toContain(accountRef);
    expect(link.expiresAt.getTime()).toBeGreaterThan(Date.now());
    const sent = fake.requests.findLast((r) => r.path === "/v1/account_links");
    expect(sent?.params).toMatchObject({
      account: accountRef,
      type: "account_onboarding",
      return_url: "https://cp.example.test/settings/payments/return",
    });

    fake.updateAccount(accountRef, {
      chargesEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [],
    });
    expect(await stripe.readAccount(accountRef)).toEqual({
      accountRef,
      chargesEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [],
    });
    await expectRefusal(stripe.readAccount("acct_nobody"), "not_found");
    // a charge on an account the platform cannot reach is refused, not attempted
    await expectRefusal(
      stripe.readIntent("pi_x", { tenantId: 1, accountRef: "acct_nobody" }),
      "not_found",
    );
  });
});
