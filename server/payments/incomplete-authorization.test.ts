import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { aBill, startBill } from "../../testing/bills";
import { startStripeFake, type StripeFake } from "../../testing/stripe-fake";
import { simulatorProcessor, usePaymentProcessors } from "./processors";
import { actOnSimulatorCheckout, simulatorCheckoutView } from "./simulator-page";
import { receiveStripeWebhook } from "../http/stripe-webhook";
import {
  aConnectedAccount,
  aPaymentsProject,
  authorize,
  cardOverFake,
  checkoutTokenOf,
  eventTypes,
  finalizeSimulated,
  paymentAction,
  readPayment,
  type PaymentsProject,
} from "../../testing/payments";

// Spec section 4, managed paid charging rule 8: an incomplete hold stays pending with
// next_action {type: reconcile, reason: incomplete_authorization}, funds neither a start nor a
// capture, and a checkout redirect is not proof of authorization. Both processors: the real
// `stripe` SDK against the local Stripe fake (its events delivered signed to the webhook
// receiver), and the simulator through its hosted page's actions.
let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterAll(async () => {
  await fake.close();
});

const RECONCILE = { type: "reconcile", reason: "incomplete_authorization" };

/** Delivers the fake's new events to the product's webhook receiver, signed as Stripe does. */
async function deliverNewEvents() {
  const statuses: number[] = [];
  for (const event of fake.takeEvents()) {
    const { payload, signature } = fake.sign(event);
    const res = await receiveStripeWebhook(
      new Request("http://localhost:3000/api/stripe/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body: payload,
      }),
    );
    statuses.push(res.status);
  }
  expect(statuses.every((s) => s === 200)).toBe(true);
  return statuses.length;
}

const stored = (id: string) => db().payment.findUniqueOrThrow({ where: { id } });

async function aCardPayment(p: PaymentsProject, source: "csms" | "simulated") {
  const bill = await aBill(p.tenantId, p.key, { ...p.base, source, hold_minor: 5000 });
  const created = await authorize(p, { bill_id: bill.id, service: "card" });
  expect(created.status).toBe(201);
  const row = await stored(created.body.id as string);
  fake.takeEvents();
  return { bill, paymentId: row.id, checkoutRef: row.processorCheckoutRef! };
}

async function expectRefused(p: PaymentsProject, paymentId: string) {
  const capture = await paymentAction(p, paymentId, "capture");
  expect(capture.status).toBe(409);
  expect(capture.body.error).toMatchObject({
    code: "payment_not_authorized",
    details: { payment_status: "pending", needs_reconciliation: true },
  });
}

describe("an incomplete card hold (Stripe)", () => {
  it("3-D Secure unfinished: pending to reconcile, starts and captures nothing, authorized once the payer finishes", async () => {
    const p = await aPaymentsProject();
    await aConnectedAccount(fake, p.tenantId);
    const { bill, paymentId, checkoutRef } = await aCardPayment(p, "csms");
    fake.leaveIncomplete(checkoutRef, "requires_action");
    // payment_intent.requires_action is genuine but not acted on; the read on GET finds it.
    expect(await deliverNewEvents()).toBe(1);
    const read = await readPayment(p, paymentId);
    expect(read.body).toMatchObject({
      status: "pending",
      next_action: RECONCILE,
      needs_reconciliation: true,
      reconciliation_reason: "incomplete_authorization",
    });
    const start = await startBill(p.tenantId, p.key, bill.id);
    expect(start.status).toBe(409);
    expect(start.body.error).toMatchObject({
      code: "payment_not_authorized",
      details: { reason: "not_authorized", payment_id: paymentId, payment_status: "pending" },
    });
    await expectRefused(p, paymentId);
    // Reading again changes nothing twice.
    expect((await readPayment(p, paymentId)).body.next_action).toEqual(RECONCILE);
    expect(await eventTypes(p.tenantId)).toEqual(["payment.reconciliation_required"]);

    // The payer finishes 3-D Secure: Stripe's events arrive, and their job reads the intent.
    const intentRef = (await stored(paymentId)).processorIntentRef!;
    fake.finishAuthorization(intentRef);
    expect(await deliverNewEvents()).toBe(2);
    expect(await stored(paymentId)).toMatchObject({
      status: "authorized",
      needsReconciliation: false,
      reconciliationReason: null,
    });
    expect((await readPayment(p, paymentId)).body.next_action).toBeNull();
    // Now the hold funds the start (no charger here, so the start itself is rejected, offline).
    const funded = await startBill(p.tenantId, p.key, bill.id);
    expect(funded.status).toBe(202);
    expect(funded.body.result).toMatchObject({ error: { code: "station_offline" } });
    expect(await eventTypes(p.tenantId)).toEqual([
      "payment.reconciliation_required",
      "payment.authorized",
    ]);
  });

  it("a completed checkout (its redirect and its webhook) whose payment is still processing authorizes nothing", async () => {
    const p = await aPaymentsProject();
    await aConnectedAccount(fake, p.tenantId);
    const { bill, paymentId, checkoutRef } = await aCardPayment(p, "simulated");
    fake.leaveIncomplete(checkoutRef, "processing");
    const completed = fake.events().filter((e) => e.type === "checkout.session.completed");
    expect(completed.map((e) => (e.data.object as { id: string }).id)).toContain(checkoutRef);
    expect(await deliverNewEvents()).toBe(2);
    // The webhook's job read the intent: no GET was needed to flag it.
    expect(await stored(paymentId)).toMatchObject({
      status: "pending",
      needsReconciliation: true,
      reconciliationReason: "incomplete_authorization",
    });
    await finalizeSimulated(p, bill.id, 10_000);
    await expectRefused(p, paymentId);
    expect((await readPayment(p, paymentId)).body.next_action).toEqual(RECONCILE);

    const intentRef = (await stored(paymentId)).processorIntentRef!;
    fake.finishAuthorization(intentRef);
    await deliverNewEvents();
    expect((await stored(paymentId)).status).toBe("authorized");
    const capture = await paymentAction(p, paymentId, "capture");
    expect(capture.body).toMatchObject({ status: "captured", captured_minor: 350 });
    expect(fake.captures.filter((c) => c.intent === intentRef)).toEqual([
      { intent: intentRef, amount: 350 },
    ]);
  });

  it("a hold below the amount (a partial authorization) stays pending to reconcile", async () => {
    const p = await aPaymentsProject();
    await aConnectedAccount(fake, p.tenantId);
    const { bill, paymentId, checkoutRef } = await aCardPayment(p, "simulated");
    fake.leaveIncomplete(checkoutRef, { partialMinor: 2000 });
    await deliverNewEvents();
    const read = await readPayment(p, paymentId);
    expect(read.body).toMatchObject({ status: "pending", next_action: RECONCILE });
    await finalizeSimulated(p, bill.id, 1_000);
    await expectRefused(p, paymentId);
    const intentRef = (await stored(paymentId)).processorIntentRef!;
    expect(fake.captures.some((c) => c.intent === intentRef)).toBe(false);
    expect(await eventTypes(p.tenantId)).toEqual(["payment.reconciliation_required"]);
  });
});

describe("an incomplete simulator hold", () => {
  it("3-D Secure left unfinished on the hosted page: sent back to the return URL, yet pending to reconcile until approved", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, {
      ...p.base,
      source: "simulated",
      hold_minor: 5000,
    });
    const created = await authorize(p, {
      bill_id: bill.id,
      service: "simulator",
      return_url: "https://shop.example/back",
    });
    const token = checkoutTokenOf(created.body);
    const paymentId = created.body.id as string;

    // The redirect alone, with no event and no read: the payment has not moved.
    const direct = await simulatorProcessor().leaveCheckoutUnfinished(token);
    expect(direct.redirectUrl).toBe("https://shop.example/back");
    expect(direct.page).toMatchObject({ status: "open", awaitingAuthentication: true });
    expect(await stored(paymentId)).toMatchObject({
      status: "pending",
      needsReconciliation: false,
    });
    // A read shows what the intent holds: nothing.
    const read = await readPayment(p, paymentId);
    expect(read.body).toMatchObject({ status: "pending", next_action: RECONCILE });
    await finalizeSimulated(p, bill.id, 10_000);
    await expectRefused(p, paymentId);
    expect(await simulatorCheckoutView(token)).toMatchObject({
      status: "open",
      awaitingAuthentication: true,
    });
    // 3-D Secure is already under way: leaving it unfinished again acts on nothing.
    expect(await actOnSimulatorCheckout(token, "unfinished")).toBeNull();

    // The payer comes back and finishes it: the page's event path reads the intent.
    expect(await actOnSimulatorCheckout(token, "approve")).toBe("https://shop.example/back");
    expect(await stored(paymentId)).toMatchObject({
      status: "authorized",
      needsReconciliation: false,
      reconciliationReason: null,
    });
    const capture = await paymentAction(p, paymentId, "capture");
    expect(capture.body).toMatchObject({ status: "captured", captured_minor: 350 });
    expect(await eventTypes(p.tenantId)).toEqual([
      "payment.reconciliation_required",
      "payment.authorized",
      "payment.captured",
    ]);
  });

  it("through the page's action, the simulator's event flags it at once; a failed authentication or an abandon clears the flag", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const created = await authorize(p, { bill_id: bill.id, service: "simulator" });
    const token = checkoutTokenOf(created.body);
    await actOnSimulatorCheckout(token, "unfinished");
    expect(await stored(created.body.id as string)).toMatchObject({
      status: "pending",
      reconciliationReason: "incomplete_authorization",
    });
    // 3-D Secure fails: the payer may pay again on the same page, which is the next action.
    expect(await actOnSimulatorCheckout(token, "decline")).toBeNull();
    expect((await readPayment(p, created.body.id as string)).body).toMatchObject({
      status: "pending",
      next_action: { type: "redirect", url: created.body.next_action.url as string },
      needs_reconciliation: false,
      reconciliation_reason: null,
    });
    await actOnSimulatorCheckout(token, "unfinished");
    expect((await stored(created.body.id as string)).needsReconciliation).toBe(true);
    await actOnSimulatorCheckout(token, "abandon");
    const failed = await readPayment(p, created.body.id as string);
    expect(failed.body).toMatchObject({
      status: "failed",
      next_action: null,
      needs_reconciliation: false,
    });
    expect(await eventTypes(p.tenantId)).toEqual([
      "payment.reconciliation_required",
      "payment.reconciliation_required",
      "payment.failed",
    ]);
  });
});
