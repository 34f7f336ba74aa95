import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../../db";
import { aTenantWithKey } from "../../../testing/builders";
import {
  describeProcessorBehaviour,
  expectRefusal,
  newKey,
} from "../../../testing/processor-behaviour";
import { createSimulatorProcessor } from "./simulator";
import type { Checkout, MerchantAccount } from "./types";

// The built-in simulator over the test's own PostgreSQL database.
const BASE = "https://cp.example.test";
let offsetMs = 0;
const simulator = createSimulatorProcessor({
  publicBaseUrl: BASE,
  clock: () => new Date(Date.now() + offsetMs),
});
let merchant: MerchantAccount;
let otherMerchant: MerchantAccount;

beforeAll(async () => {
  merchant = { tenantId: (await aTenantWithKey()).tenantId, accountRef: null };
  otherMerchant = { tenantId: (await aTenantWithKey()).tenantId, accountRef: null };
});

/** Opens pool connections first, so concurrent calls really overlap rather than queue for one. */
const warmPool = () =>
  Promise.all(Array.from({ length: 7 }, () => db().$executeRaw`SELECT pg_sleep(0.05)`));

const tokenOf = (checkout: Checkout) => {
  const url = new URL(checkout.checkoutUrl);
  expect(url.origin).toBe(BASE);
  const match = /^\/pay\/simulator\/([A-Za-z0-9]{32})$/.exec(url.pathname);
  if (!match?.[1]) throw new Error(`not a simulator checkout URL: ${checkout.checkoutUrl}`);
  return match[1];
};

/** Time passes by `ms` while `read` looks: the lapse it finds is recorded, then time comes back. */
async function later(ms: number, read: () => Promise<unknown>) {
  offsetMs = ms;
  try {
    await read();
  } finally {
    offsetMs = 0;
  }
}

describeProcessorBehaviour("simulator", () => ({
  processor: simulator,
  account: merchant,
  otherAccount: otherMerchant,
  pay: async (checkout, outcome) => {
    if (outcome === "success") await simulator.approveCheckout(tokenOf(checkout));
    else await simulator.declineCheckout(tokenOf(checkout), outcome.decline);
  },
  expireCheckout: (checkout) =>
    later(24 * 3600_000 + 1000, () => simulator.readCheckout(checkout.checkoutRef, merchant)),
  expireAuthorization: (intentRef) =>
    later(7 * 24 * 3600_000 + 1000, () => simulator.readIntent(intentRef, merchant)),
}));

const aCheckout = (amountMinor = 5000, key = newKey()) =>
  simulator.createCheckout({
    idempotencyKey: key,
    account: merchant,
    amountMinor,
    currency: "usd",
    description: "Charging at Depot",
    metadata: { payment_id: "pay_1" },
    successUrl: `${BASE}/done`,
    cancelUrl: `${BASE}/cancelled`,
  });

describe("simulator: its hosted checkout page", () => {
  it("shows the amount, then approve places the hold and sends the payer to success_url", async () => {
    const checkout = await aCheckout(4200);
    expect(checkout.intentRef).toBe(checkout.checkoutRef);
    const token = tokenOf(checkout);
    expect(await simulator.checkoutPage(token)).toMatchObject({
      tenantId: merchant.tenantId,
      amountMinor: 4200,
      currency: "usd",
      description: "Charging at Depot",
      status: "open",
      lastError: null,
    });
    const approved = await simulator.approveCheckout(token);
    expect(approved).toMatchObject({ redirectUrl: `${BASE}/done`, page: { status: "complete" } });
    await expectRefusal(simulator.approveCheckout(token), "invalid", "checkout_not_open");
    await expectRefusal(simulator.abandonCheckout(token), "invalid", "checkout_not_open");
    expect(await simulator.readIntent(checkout.intentRef as string, merchant)).toMatchObject({
      status: "requires_capture",
      amountCapturableMinor: 4200,
    });
    expect(await simulator.checkoutPage("no-such-token")).toBeNull();
  });

  it("decline keeps the page payable with the reason; abandon expires it and sends the payer to cancel_url", async () => {
    const checkout = await aCheckout();
    const token = tokenOf(checkout);
    const declined = await simulator.declineCheckout(token, "expired_card");
    expect(declined).toMatchObject({
      redirectUrl: null,
      page: { status: "open", lastError: { code: "expired_card", declineCode: "expired_card" } },
    });
    const abandoned = await simulator.abandonCheckout(token);
    expect(abandoned).toMatchObject({
      redirectUrl: `${BASE}/cancelled`,
      page: { status: "expired" },
    });
    expect(await simulator.readIntent(checkout.intentRef as string, merchant)).toMatchObject({
      status: "canceled",
      canceledReason: "abandoned",
    });
    await expectRefusal(simulator.approveCheckout(token), "invalid", "checkout_not_open");
  });

  it("leave unfinished: 3-D Secure started, nothing held, the checkout open; approve finishes it, a failed one is payable again", async () => {
    const checkout = await aCheckout(4200);
    const token = tokenOf(checkout);
    const left = await simulator.leaveCheckoutUnfinished(token);
    // Sent back as a 3-D Secure redirect does, whatever the outcome: the redirect proves nothing.
    expect(left).toMatchObject({
      redirectUrl: `${BASE}/done`,
      page: { status: "open", awaitingAuthentication: true },
    });
    expect(await simulator.readCheckout(checkout.checkoutRef, merchant)).toMatchObject({
      status: "open",
    });
    expect(await simulator.readIntent(checkout.checkoutRef, merchant)).toMatchObject({
      status: "requires_action",
      amountCapturableMinor: 0,
    });
    await expectRefusal(
      simulator.capture({
        idempotencyKey: newKey(),
        account: merchant,
        intentRef: checkout.checkoutRef,
        amountMinor: 4200,
      }),
      "invalid",
      "payment_intent_unexpected_state",
    );
    await expectRefusal(
      simulator.leaveCheckoutUnfinished(token),
      "invalid",
      "payment_intent_unexpected_state",
    );
    // Authentication fails: payable again, with the reason.
    await simulator.declineCheckout(token);
    expect(await simulator.readIntent(checkout.checkoutRef, merchant)).toMatchObject({
      status: "requires_payment_method",
      lastError: { code: "card_declined" },
    });
    await simulator.leaveCheckoutUnfinished(token);
    expect(await simulator.approveCheckout(token)).toMatchObject({ page: { status: "complete" } });
    expect(await simulator.readIntent(checkout.checkoutRef, merchant)).toMatchObject({
      status: "requires_capture",
      amountCapturableMinor: 4200,
    });
  });

  it("an unfinished 3-D Secure lapses with its checkout: the intent is canceled", async () => {
    const checkout = await aCheckout();
    await simulator.leaveCheckoutUnfinished(tokenOf(checkout));
    await later(24 * 3600_000 + 1000, () => simulator.readCheckout(checkout.checkoutRef, merchant));
    expect(await simulator.readCheckout(checkout.checkoutRef, merchant)).toMatchObject({
      status: "expired",
    });
    expect(await simulator.readIntent(checkout.checkoutRef, merchant)).toMatchObject({
      status: "canceled",
      canceledReason: "abandoned",
    });
  });

  it("approvals and an abandon at once: exactly one of them acts", async () => {
    const token = tokenOf(await aCheckout());
    await warmPool();
    const results = await Promise.allSettled([
      ...Array.from({ length: 6 }, () => simulator.approveCheckout(token)),
      simulator.abandonCheckout(token),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  it("a checkout canceled by the merchant takes no payment", async () => {
    const checkout = await aCheckout();
    await simulator.cancel({
      idempotencyKey: newKey(),
      account: merchant,
      intentRef: checkout.intentRef as string,
    });
    expect(await simulator.readCheckout(checkout.checkoutRef, merchant)).toMatchObject({
      status: "expired",
    });
    await expectRefusal(
      simulator.approveCheckout(tokenOf(checkout)),
      "invalid",
      "checkout_not_open",
    );
  });
});

describe("simulator: idempotency under concurrency", () => {
  async function anAuthorizedIntent(amountMinor = 5000) {
    const checkout = await aCheckout(amountMinor);
    await simulator.approveCheckout(tokenOf(checkout));
    return checkout.intentRef as string;
  }

  it("two captures at once with the same key capture once and answer alike", async () => {
    const intentRef = await anAuthorizedIntent();
    const input = { idempotencyKey: newKey(), account: merchant, intentRef, amountMinor: 2500 };
    await warmPool();
    const [a, b] = await Promise.all([simulator.capture(input), simulator.capture(input)]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ status: "succeeded", amountReceivedMinor: 2500 });
  });

  it("captures at once with different keys: one captures, the others are refused", async () => {
    const intentRef = await anAuthorizedIntent();
    const capture = () =>
      simulator.capture({
        idempotencyKey: newKey(),
        account: merchant,
        intentRef,
        amountMinor: 1000,
      });
    await warmPool();
    const results = await Promise.allSettled([capture(), capture(), capture()]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected", "rejected"]);
    expect(await simulator.readIntent(intentRef, merchant)).toMatchObject({
      amountReceivedMinor: 1000,
    });
  });

  it("stores a definitive refusal under its key: the same request is refused again, even once it could succeed", async () => {
    const checkout = await aCheckout(3000);
    const input = {
      idempotencyKey: newKey(),
      account: merchant,
      intentRef: checkout.intentRef as string,
      amountMinor: 3000,
    };
    await expectRefusal(simulator.capture(input), "invalid", "payment_intent_unexpected_state");
    await simulator.approveCheckout(tokenOf(checkout));
    await expectRefusal(simulator.capture(input), "invalid", "payment_intent_unexpected_state");
    expect(await simulator.capture({ ...input, idempotencyKey: newKey() })).toMatchObject({
      status: "succeeded",
    });
  });

  it("refuses what no processor would take, and keeps money invariants in the database too", async () => {
    await expectRefusal(aCheckout(49), "invalid", "amount_too_small");
    await expectRefusal(
      simulator.readIntent("sim_pi_x", { tenantId: merchant.tenantId, accountRef: "acct_1" }),
      "invalid",
    );
    const intentRef = await anAuthorizedIntent(1000);
    await expect(
      db().simulatedIntent.update({ where: { id: intentRef }, data: { amountCaptured: 1001 } }),
    ).rejects.toThrow(/simulated_intents_amounts_check/);
  });
});
