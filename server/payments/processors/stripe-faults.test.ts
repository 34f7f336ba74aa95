import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRefusal, newKey } from "../../../testing/processor-behaviour";
import { startStripeFake, type StripeFake } from "../../../testing/stripe-fake";
import { createStripeProcessor, type StripeProcessor } from "./stripe";
import type { MerchantAccount } from "./types";

// Faults between us and Stripe, through the real SDK: each is `uncertain`, and asking again with
// the SAME key (or reading the object) settles it without doing anything twice.
let fake: StripeFake;
let stripe: StripeProcessor;
let merchant: MerchantAccount;
const TIMEOUT_MS = 400;

beforeAll(async () => {
  fake = await startStripeFake();
  stripe = createStripeProcessor({
    secretKey: fake.secretKey,
    connectWebhookSecret: fake.webhookSecret,
    apiUrl: fake.url,
    timeoutMs: TIMEOUT_MS,
  });
  const { accountRef } = await stripe.createAccount({ idempotencyKey: newKey(), country: "US" });
  fake.updateAccount(accountRef, { chargesEnabled: true, requirementsDue: [] });
  merchant = { tenantId: 1, accountRef };
});

afterAll(async () => {
  await fake.close();
});

const checkoutInput = (idempotencyKey: string) => ({
  idempotencyKey,
  account: merchant,
  amountMinor: 5000,
  currency: "usd" as const,
  description: "Charging session",
  metadata: {},
  successUrl: "https://cp.example.test/ok",
  cancelUrl: "https://cp.example.test/cancel",
});

async function anAuthorizedIntent() {
  const checkout = await stripe.createCheckout(checkoutInput(newKey()));
  fake.completeCheckout(checkout.checkoutRef, "success");
  return (await stripe.readCheckout(checkout.checkoutRef, merchant)).intentRef as string;
}

const capturesOf = (intentRef: string) => fake.captures.filter((c) => c.intent === intentRef);
const capturePath = (intentRef: string) => `/v1/payment_intents/${intentRef}/capture`;

describe("card (Stripe): faults are uncertain and settle with the same key", () => {
  it("a capture applied at Stripe whose answer was lost replays the capture, never captures twice", async () => {
    const intentRef = await anAuthorizedIntent();
    const input = { idempotencyKey: newKey(), account: merchant, intentRef, amountMinor: 3210 };
    // twice: the SDK asks once more itself, with the same key, when a connection is reset
    fake.injectFault("POST", capturePath(intentRef), { kind: "reset_after_apply" }, 2);
    await expectRefusal(stripe.capture(input), "uncertain");
    expect(capturesOf(intentRef)).toHaveLength(1); // Stripe did it

    const settled = await stripe.capture(input);
    expect(settled).toMatchObject({ status: "succeeded", amountReceivedMinor: 3210 });
    expect(fake.requests.findLast((r) => r.idempotencyKey === input.idempotencyKey)?.replayed).toBe(
      true,
    );
    expect(capturesOf(intentRef)).toHaveLength(1);
  });

  it("a checkout created at Stripe whose answer was lost is the same checkout when asked again", async () => {
    const key = newKey();
    const sessions = () => fake.count(merchant.accountRef as string, "checkout.session");
    const before = sessions();
    fake.injectFault("POST", "/v1/checkout/sessions", { kind: "reset_after_apply" }, 2);
    await expectRefusal(stripe.createCheckout(checkoutInput(key)), "uncertain");
    expect(sessions()).toBe(before + 1);
    const again = await stripe.createCheckout(checkoutInput(key));
    expect(fake.requests.findLast((r) => r.idempotencyKey === key)?.replayed).toBe(true);
    expect(await stripe.readCheckout(again.checkoutRef, merchant)).toMatchObject({
      status: "open",
    });
    expect(sessions()).toBe(before + 1);
  });

  it("a refund applied at Stripe whose answer was lost is the same refund when asked again", async () => {
    const intentRef = await anAuthorizedIntent();
    await stripe.capture({
      idempotencyKey: newKey(),
      account: merchant,
      intentRef,
      amountMinor: 5000,
    });
    const input = { idempotencyKey: newKey(), account: merchant, intentRef, amountMinor: 5000 };
    fake.injectFault("POST", "/v1/refunds", { kind: "reset_after_apply" }, 2);
    await expectRefusal(stripe.refund(input), "uncertain");
    const refund = await stripe.refund(input);
    expect(refund).toMatchObject({ status: "succeeded", amountMinor: 5000 });
    expect(await stripe.readIntent(intentRef, merchant)).toMatchObject({
      amountRefundedMinor: 5000,
    });
  });

  it("one reset connection is asked again by the SDK itself, with the same key: replayed, applied once", async () => {
    const intentRef = await anAuthorizedIntent();
    const input = { idempotencyKey: newKey(), account: merchant, intentRef, amountMinor: 2000 };
    fake.injectFault("POST", capturePath(intentRef), { kind: "reset_after_apply" });
    expect(await stripe.capture(input)).toMatchObject({
      status: "succeeded",
      amountReceivedMinor: 2000,
    });
    const sent = fake.requests.filter((r) => r.idempotencyKey === input.idempotencyKey);
    expect(sent.map((r) => [r.status, r.replayed])).toEqual([
      ["reset", false],
      [200, true],
    ]);
    expect(capturesOf(intentRef)).toHaveLength(1);
  });

  it("an answer slower than our timeout is uncertain; asking while Stripe still works is 409, uncertain; after, the result", async () => {
    const intentRef = await anAuthorizedIntent();
    const input = { idempotencyKey: newKey(), account: merchant, intentRef, amountMinor: 1000 };
    fake.injectFault("POST", capturePath(intentRef), { kind: "hang", ms: TIMEOUT_MS * 3 });
    const timedOut = await expectRefusal(stripe.capture(input), "uncertain");
    expect(timedOut.message).toMatch(/timeout/i);

    const inProgress = await expectRefusal(stripe.capture(input), "uncertain");
    expect(inProgress.httpStatus).toBe(409);
    expect(capturesOf(intentRef)).toHaveLength(0);

    await fake.settled();
    expect(await stripe.capture(input)).toMatchObject({
      status: "succeeded",
      amountReceivedMinor: 1000,
    });
    expect(capturesOf(intentRef)).toEqual([{ intent: intentRef, amount: 1000 }]);
  });

  it("a rate limit is uncertain and the same key then goes through, once", async () => {
    const intentRef = await anAuthorizedIntent();
    const input = { idempotencyKey: newKey(), account: merchant, intentRef, amountMinor: 800 };
    fake.injectFault("POST", capturePath(intentRef), { kind: "rate_limit" });
    const limited = await expectRefusal(stripe.capture(input), "uncertain");
    expect(limited.httpStatus).toBe(429);
    expect(await stripe.capture(input)).toMatchObject({
      status: "succeeded",
      amountReceivedMinor: 800,
    });
    expect(capturesOf(intentRef)).toHaveLength(1);
  });

  it("a 500 is uncertain and Stripe replays it for the key: reading the intent shows nothing happened", async () => {
    const intentRef = await anAuthorizedIntent();
    const input = { idempotencyKey: newKey(), account: merchant, intentRef, amountMinor: 900 };
    fake.injectFault("POST", capturePath(intentRef), { kind: "error500" });
    expect((await expectRefusal(stripe.capture(input), "uncertain")).httpStatus).toBe(500);
    // Stripe stores the first result of a request that began executing, a 500 included.
    expect((await expectRefusal(stripe.capture(input), "uncertain")).httpStatus).toBe(500);
    expect(fake.requests.findLast((r) => r.idempotencyKey === input.idempotencyKey)?.replayed).toBe(
      true,
    );
    expect(await stripe.readIntent(intentRef, merchant)).toMatchObject({
      status: "requires_capture",
      amountCapturableMinor: 5000,
      amountReceivedMinor: 0,
    });
    expect(capturesOf(intentRef)).toHaveLength(0);
  });

  it("a read that fails is uncertain too, and a reset on a read loses nothing", async () => {
    const intentRef = await anAuthorizedIntent();
    fake.injectFault("GET", `/v1/payment_intents/${intentRef}`, { kind: "reset_after_apply" }, 2);
    await expectRefusal(stripe.readIntent(intentRef, merchant), "uncertain");
    expect(await stripe.readIntent(intentRef, merchant)).toMatchObject({
      status: "requires_capture",
    });
  });
});
