import { describe, expect, it } from "vitest";
import { db } from "../db";
import { aBill } from "../../testing/bills";
import { call, idem } from "../../testing/api";
import { anotherKey } from "../../testing/builders";
import { simulatorProcessor, usePaymentProcessors, cardProcessor } from "./processors";
import { createStripeProcessor } from "./processors/stripe";
import { refundPayment } from "./refund-payment";
import { actOnSimulatorCheckout, simulatorCheckoutView } from "./simulator-page";
import {
  aPaymentsProject,
  anAuthorizedSimulatedPayment,
  authorize,
  checkoutTokenOf,
  eventTypes,
  finalizeSimulated,
  paymentAction,
  readPayment,
} from "../../testing/payments";

describe("the simulator's managed flow", () => {
  it("authorizes through the hosted checkout, captures exactly the final bill, refunds once", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const created = await authorize(p, {
      bill_id: bill.id,
      service: "simulator",
      return_url: "https://shop.example/done",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      bill_id: bill.id,
      service: "simulator",
      status: "pending",
      amount_minor: 5000,
      currency: "USD",
      next_action: { type: "redirect", url: expect.stringMatching(/\/pay\/simulator\/\w+$/) },
      attempts: [{ kind: "authorize", status: "succeeded" }],
    });
    const paymentId = created.body.id as string;
    // The payer's redirect back proves nothing; the read of the intent does.
    expect((await readPayment(p, paymentId)).body.status).toBe("pending");
    const approved = await simulatorProcessor().approveCheckout(checkoutTokenOf(created.body));
    expect(approved.redirectUrl).toBe("https://shop.example/done");
    const authorized = await readPayment(p, paymentId);
    expect(authorized.body).toMatchObject({ status: "authorized", next_action: null });
    expect(authorized.body.expires_at).not.toBeNull();

    const early = await paymentAction(p, paymentId, "capture");
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe("bill_not_final");

    const final = await finalizeSimulated(p, bill.id, 10_000);
    expect(final.body.total_minor).toBe(350);
    const captured = await paymentAction(p, paymentId, "capture");
    expect(captured.status).toBe(200);
    expect(captured.body).toMatchObject({ status: "captured", captured_minor: 350 });
    const intent = await db().simulatedIntent.findFirstOrThrow({
      where: { tenantId: p.tenantId },
    });
    expect(intent).toMatchObject({ status: "succeeded", amountCaptured: 350 });

    const refundKey = idem();
    const refunded = await paymentAction(p, paymentId, "refund", refundKey);
    expect(refunded.body).toMatchObject({ status: "refunded", refunded_minor: 350 });
    // A second refund under a new key is no new success: 409 naming the state, nothing sent
    const again = await paymentAction(p, paymentId, "refund");
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: "payment_already_refunded",
      details: { payment_id: paymentId, payment_status: "refunded" },
    });
    // the same key still replays the first answer
    const replay = await paymentAction(p, paymentId, "refund", refundKey);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toMatchObject({ status: "refunded", refunded_minor: 350 });
    expect(
      (await db().simulatedIntent.findUniqueOrThrow({ where: { id: intent.id } })).amountRefunded,
    ).toBe(350);
    expect(replay.body.attempts.map((a: { kind: string }) => a.kind)).toEqual([
      "authorize",
      "capture",
      "refund",
    ]);
    expect(await eventTypes(p.tenantId)).toEqual([
      "payment.authorized",
      "payment.captured",
      "payment.refunded",
    ]);
    const bills = await call("GET", `/v1/tenants/${p.tenantId}/bills/${bill.id}`, { key: p.key });
    expect(bills.body.payment).toEqual({ id: paymentId, service: "simulator", status: "refunded" });
  });

  it("releases the hold of a zero final bill instead of capturing", async () => {
    const p = await aPaymentsProject();
    const { bill, payment } = await anAuthorizedSimulatedPayment(p);
    await finalizeSimulated(p, bill.id, 0);
    const res = await paymentAction(p, payment.id, "capture");
    expect(res.body).toMatchObject({ status: "released", captured_minor: 0 });
    expect(res.body.attempts.map((a: { kind: string }) => a.kind)).toEqual([
      "authorize",
      "release",
    ]);
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized", "payment.released"]);
    // capturing again under a new key says where the payment is
    const again = await paymentAction(p, payment.id, "capture");
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("payment_already_released");
  });

  it("a capture, release or refund asked again under a new key is a 409 naming the state; the same key replays", async () => {
    const p = await aPaymentsProject();
    const { bill, payment } = await anAuthorizedSimulatedPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    const captureKey = idem();
    expect((await paymentAction(p, payment.id, "capture", captureKey)).body.status).toBe(
      "captured",
    );
    const capturedAgain = await paymentAction(p, payment.id, "capture");
    expect(capturedAgain.status).toBe(409);
    expect(capturedAgain.body.error).toMatchObject({
      code: "payment_already_captured",
      details: { payment_id: payment.id, payment_status: "captured" },
    });
    const replay = await paymentAction(p, payment.id, "capture", captureKey);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ status: "captured", captured_minor: 350 });

    // in flight: the refund's call has not run yet (its job is due, nobody claimed it)
    await db().$transaction((tx) =>
      refundPayment({ tenantId: p.tenantId, paymentId: payment.id, db: tx }),
    );
    const inFlight = await paymentAction(p, payment.id, "refund");
    expect(inFlight.status).toBe(409);
    expect(inFlight.body.error).toMatchObject({
      code: "payment_change_in_progress",
      details: { payment_status: "refunding" },
    });
    const captureInFlight = await paymentAction(p, payment.id, "capture");
    expect(captureInFlight.body.error.code).toBe("payment_change_in_progress");

    const unused = await anAuthorizedSimulatedPayment(p);
    const releaseKey = idem();
    await paymentAction(p, unused.payment.id, "release", releaseKey);
    const releasedAgain = await paymentAction(p, unused.payment.id, "release");
    expect(releasedAgain.status).toBe(409);
    expect(releasedAgain.body.error.code).toBe("payment_already_released");
    expect((await paymentAction(p, unused.payment.id, "release", releaseKey)).status).toBe(200);
    const attempts = (await readPayment(p, unused.payment.id)).body.attempts as { kind: string }[];
    expect(attempts.map((a) => a.kind)).toEqual(["authorize", "release"]);
  });

  it("refuses a bill above its hold for reconciliation, and refunds nothing uncaptured", async () => {
    const p = await aPaymentsProject();
    const { bill, payment } = await anAuthorizedSimulatedPayment(p, 100);
    await finalizeSimulated(p, bill.id, 10_000); // 350 > 100
    const res = await paymentAction(p, payment.id, "capture");
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: "bill_exceeds_hold",
      details: { total_minor: 350, hold_minor: 100 },
    });
    const refund = await paymentAction(p, payment.id, "refund");
    expect(refund.status).toBe(409);
    expect(refund.body.error.code).toBe("payment_not_captured");
    expect((await readPayment(p, payment.id)).body.status).toBe("authorized");
  });

  it("releases an unused hold, but not one a final bill uses", async () => {
    const p = await aPaymentsProject();
    const unused = await anAuthorizedSimulatedPayment(p);
    const released = await paymentAction(p, unused.payment.id, "release");
    expect(released.body).toMatchObject({ status: "released" });
    expect(released.body.released_at).not.toBeNull();
    const capture = await paymentAction(p, unused.payment.id, "capture");
    expect(capture.status).toBe(409);
    expect(capture.body.error.code).toBe("payment_not_authorized");

    const used = await anAuthorizedSimulatedPayment(p);
    await finalizeSimulated(p, used.bill.id, 1000);
    const refused = await paymentAction(p, used.payment.id, "release");
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("hold_in_use");
  });

  it("fails a payment whose checkout was abandoned, and a declined payer may try again", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const created = await authorize(p, { bill_id: bill.id, service: "simulator" });
    const token = checkoutTokenOf(created.body);
    await simulatorProcessor().declineCheckout(token, "insufficient_funds");
    expect((await readPayment(p, created.body.id)).body.status).toBe("pending");
    await simulatorProcessor().abandonCheckout(token);
    const read = await readPayment(p, created.body.id);
    expect(read.body).toMatchObject({ status: "failed", next_action: null });
    expect(await eventTypes(p.tenantId)).toEqual(["payment.failed"]);
    const release = await paymentAction(p, created.body.id, "release");
    expect(release.body.error.code).toBe("payment_not_authorized");
  });
});

describe("the simulator's hosted page", () => {
  it("approves like a test card, moves the payment through the same event path, and sends the payer back", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, {
      ...p.base,
      source: "simulated",
      hold_minor: 1234,
    });
    const created = await authorize(p, {
      bill_id: bill.id,
      service: "simulator",
      return_url: "https://shop.example/back",
    });
    const token = checkoutTokenOf(created.body);
    const view = await simulatorCheckoutView(token);
    expect(view).toMatchObject({ amountMinor: 1234, currency: "USD", status: "open" });
    expect(view?.projectName).toMatch(/^Project /);
    expect(await actOnSimulatorCheckout(token, "decline")).toBeNull();
    expect((await simulatorCheckoutView(token))?.lastError).toMatch(/insufficient funds/);
    expect(await actOnSimulatorCheckout(token, "approve")).toBe("https://shop.example/back");
    // No read of the payment was asked for: the simulator's event did it.
    const row = await db().payment.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.status).toBe("authorized");
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized"]);
    // A second click acts on nothing.
    expect(await actOnSimulatorCheckout(token, "abandon")).toBeNull();
    expect((await db().payment.findUniqueOrThrow({ where: { id: row.id } })).status).toBe(
      "authorized",
    );
    expect(await simulatorCheckoutView("no-such-token")).toBeNull();
  });
});

describe("the rules of authorizing", () => {
  it("makes one payment per bill whatever the key or the service (409 payment_exists)", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const [a, b] = await Promise.all([
      authorize(p, { bill_id: bill.id, service: "simulator" }),
      authorize(p, { bill_id: bill.id, service: "simulator" }),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([201, 409]);
    const winner = a.status === 201 ? a : b;
    const loser = a.status === 201 ? b : a;
    expect(loser.body.error).toMatchObject({
      code: "payment_exists",
      details: { payment_id: winner.body.id },
    });
    const card = await authorize(p, { bill_id: bill.id, service: "card" });
    expect(card.status).toBe(409);
    expect(card.body.error.code).toBe("payment_exists");
    expect(await db().payment.count({ where: { billId: bill.id } })).toBe(1);
    expect(await db().paymentAttempt.count({ where: { payment: { billId: bill.id } } })).toBe(1);
  });

  it("replays the same key's answer instead of authorizing again", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const key = idem();
    const first = await authorize(p, { bill_id: bill.id, service: "simulator" }, key);
    const replay = await authorize(p, { bill_id: bill.id, service: "simulator" }, key);
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.body.id);
  });

  it("refuses the simulator on csms bills, card without keys or a ready account, and unknown bills", async () => {
    const p = await aPaymentsProject();
    const csms = await aBill(p.tenantId, p.key, { ...p.base, source: "csms" });
    const sim = await authorize(p, { bill_id: csms.id, service: "simulator" });
    expect(sim.status).toBe(409);
    expect(sim.body.error.code).toBe("simulator_not_allowed");

    const configured = cardProcessor();
    usePaymentProcessors({
      card: createStripeProcessor({ secretKey: null, connectWebhookSecret: null, apiUrl: null }),
    });
    try {
      const noKeys = await authorize(p, { bill_id: csms.id, service: "card" });
      expect(noKeys.status).toBe(409);
      expect(noKeys.body.error).toMatchObject({
        code: "payment_service_unavailable",
        details: { service: "card", reason: expect.stringContaining("STRIPE_SECRET_KEY") },
      });
      const services = await call("GET", `/v1/tenants/${p.tenantId}/payment-services`, {
        key: p.key,
      });
      expect(services.body.data).toEqual([
        { service: "card", available: false, reason: expect.stringContaining("STRIPE_SECRET_KEY") },
        { service: "simulator", available: true, reason: null },
      ]);
      // Everything else still works without Stripe.
      const simulated = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
      expect((await authorize(p, { bill_id: simulated.id, service: "simulator" })).status).toBe(
        201,
      );
    } finally {
      usePaymentProcessors({ card: configured });
    }

    const otherProject = await aPaymentsProject();
    const foreign = await aBill(otherProject.tenantId, otherProject.key, {
      ...otherProject.base,
      source: "simulated",
    });
    const unknown = await authorize(p, { bill_id: foreign.id, service: "simulator" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details.fields).toEqual([
      expect.objectContaining({ field: "bill_id", location: "body" }),
    ]);
    const bad = await authorize(p, { bill_id: csms.id, service: "cash" });
    expect(bad.status).toBe(422);
  });

  it("needs billing:write to authorize, billing:refund to refund, and hides other projects' payments", async () => {
    const p = await aPaymentsProject();
    const { bill, payment } = await anAuthorizedSimulatedPayment(p);
    await finalizeSimulated(p, bill.id, 1000);
    const readOnly = await anotherKey(p.tenantId, ["billing:read"]);
    const writer = await anotherKey(p.tenantId, ["billing:read", "billing:write"]);
    const denied = await authorize(
      { tenantId: p.tenantId, key: readOnly },
      { bill_id: bill.id, service: "simulator" },
    );
    expect(denied.status).toBe(403);
    await paymentAction({ tenantId: p.tenantId, key: writer }, payment.id, "capture");
    const refund = await paymentAction({ tenantId: p.tenantId, key: writer }, payment.id, "refund");
    expect(refund.status).toBe(403);
    expect(refund.body.error.code).toBe("insufficient_scope");
    const other = await aPaymentsProject();
    expect((await readPayment(other, payment.id)).status).toBe(404);
    const list = await call("GET", `/v1/tenants/${p.tenantId}/payments?status=captured`, {
      key: readOnly,
    });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([payment.id]);
    const none = await call("GET", `/v1/tenants/${p.tenantId}/payments?status=refunded`, {
      key: readOnly,
    });
    expect(none.body.data).toEqual([]);
  });
});

describe("concurrency", () => {
  it("captures once when two captures with different keys arrive at once", async () => {
    const p = await aPaymentsProject();
    const { bill, payment } = await anAuthorizedSimulatedPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    const [a, b] = await Promise.all([
      paymentAction(p, payment.id, "capture"),
      paymentAction(p, payment.id, "capture"),
    ]);
    // the second, under its own key, is told the capture was asked already (in flight or done)
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const refused = a.status === 409 ? a : b;
    expect(["payment_change_in_progress", "payment_already_captured"]).toContain(
      refused.body.error.code,
    );
    const after = await readPayment(p, payment.id);
    expect(after.body).toMatchObject({ status: "captured", captured_minor: 350 });
    expect(after.body.attempts.filter((x: { kind: string }) => x.kind === "capture")).toHaveLength(
      1,
    );
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized", "payment.captured"]);
  });
});
