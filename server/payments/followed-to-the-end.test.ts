import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { aBill } from "../../testing/bills";
import { BACKGROUND_JOBS } from "../background-jobs";
import { runJobsNow, startedJobsSettled } from "../jobs/run-now";
import { call, idem } from "../../testing/api";
import { startStripeFake, type FakeEvent, type StripeFake } from "../../testing/stripe-fake";
import { PAYMENT_WAIT_MS } from "./await-attempts";
import { capturePayment } from "./capture-payment";
import { paymentAttemptJob } from "./payment-attempt-job";
import { cardProcessor, usePaymentProcessors } from "./processors";
import { STRIPE_CALL_TIMEOUT_MS } from "./processors/stripe";
import { receiveStripeWebhook } from "../http/stripe-webhook";
import {
  aConnectedAccount,
  aPaymentsProject,
  authorize,
  cardOverFake,
  eventTypes,
  finalizeSimulated,
  paymentAction,
  readPayment,
  type PaymentsProject,
} from "../../testing/payments";

// Issue 21, point 1 (and the hold's deadline of point 13): every in-flight payment operation is
// followed to the end. The real `stripe` SDK against the HTTP-level Stripe fake.
let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterEach(async () => {
  await startedJobsSettled();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterAll(async () => {
  await fake.close();
});

const later = (ms: number) => new Date(Date.now() + ms);
const HOUR = 3_600_000;
/** The product's own payment jobs (its sweeps among them), as its runner serves them. */
const paymentJobs = BACKGROUND_JOBS.filter((d) => d.id.startsWith("payments."));

async function aCardProject() {
  const p = await aPaymentsProject();
  const account = await aConnectedAccount(fake, p.tenantId);
  return { ...p, account };
}

/** A simulated bill paid by card, the checkout completed at the fake and the hold read back. */
async function anAuthorizedCardPayment(p: PaymentsProject, captureBefore?: Date) {
  const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
  const created = await authorize(p, { bill_id: bill.id, service: "card" });
  expect(created.status).toBe(201);
  const paymentId = created.body.id as string;
  const row = await db().payment.findUniqueOrThrow({ where: { id: paymentId } });
  fake.completeCheckout(row.processorCheckoutRef!, "success", { captureBefore });
  const read = await readPayment(p, paymentId);
  expect(read.body.status).toBe("authorized");
  const intentRef = (await db().payment.findUniqueOrThrow({ where: { id: paymentId } }))
    .processorIntentRef!;
  return { bill, paymentId, intentRef, read: read.body };
}

/** A capture journaled in its own transaction, with no fast path: a runner will make the call. */
async function aJournaledCapture(p: PaymentsProject, paymentId: string) {
  const captured = await db().$transaction((tx) =>
    capturePayment({ tenantId: p.tenantId, paymentId, db: tx }),
  );
  return captured.attempts.find((a) => a.kind === "capture")!.id;
}

async function until(check: () => boolean, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const captureCalls = (intentRef: string) =>
  fake.requests.filter((r) => r.method === "POST" && r.path.endsWith(`${intentRef}/capture`));

async function deliver(events: FakeEvent[]) {
  const statuses: number[] = [];
  for (const event of events) {
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
  return statuses;
}

describe("an in-flight call is asked again until it settles", () => {
  it("a capture whose call times out on all eight tries is settled by the sweep, asking again with the same key", async () => {
    usePaymentProcessors({ card: cardOverFake(fake, { timeoutMs: 300 }) });
    const p = await aCardProject();
    const { bill, paymentId, intentRef } = await anAuthorizedCardPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    // Stripe never hears the capture, eight times over: each try times out, nothing is applied.
    fake.injectFault("POST", /\/capture$/, { kind: "stall_before_apply" }, 8);
    const first = await paymentAction(p, paymentId, "capture");
    expect(first.body).toMatchObject({ status: "capturing" });
    const attempt = first.body.attempts[1];
    expect(attempt).toMatchObject({ kind: "capture", status: "unknown" });
    // Tries 2 to 8, each once its backoff has passed (the last waits are an hour each).
    for (let hour = 1; hour <= 7; hour++)
      expect(
        await runJobsNow({ db: db(), definitions: [paymentAttemptJob], now: later(hour * HOUR) }),
      ).toBe(1);
    const job = await db().job.findUniqueOrThrow({
      where: { id: `payments.attempt:${attempt.id}` },
    });
    expect(job).toMatchObject({ status: "failed", attempt: 8 });
    expect(captureCalls(intentRef)).toHaveLength(8);
    expect((await readPayment(p, paymentId)).body.status).toBe("capturing");

    // The product's payment jobs, sweeps included, as a runner serves them ten hours on.
    await runJobsNow({ db: db(), definitions: paymentJobs, cron: true, now: later(10 * HOUR) });
    await runJobsNow({ db: db(), definitions: paymentJobs, now: later(10 * HOUR + 1_000) });

    const after = await readPayment(p, paymentId);
    expect(after.body).toMatchObject({
      status: "captured",
      captured_minor: 350,
      needs_reconciliation: false,
    });
    expect(after.body.attempts[1]).toMatchObject({ id: attempt.id, status: "succeeded" });
    const calls = captureCalls(intentRef);
    expect(calls).toHaveLength(9);
    expect(new Set(calls.map((r) => r.idempotencyKey))).toEqual(new Set([attempt.id]));
    expect(fake.captures.filter((c) => c.intent === intentRef)).toEqual([
      { intent: intentRef, amount: 350 },
    ]);
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized", "payment.captured"]);
  });

  it("a call still unknown after 23 hours is flagged, and still asked until it settles", async () => {
    usePaymentProcessors({ card: cardOverFake(fake, { timeoutMs: 300 }) });
    const p = await aCardProject();
    const { bill, paymentId, intentRef } = await anAuthorizedCardPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    // Stripe is unreachable for a day: every capture stalls.
    fake.injectFault("POST", /\/capture$/, { kind: "stall_before_apply" }, 1_000);
    const attemptId = (await paymentAction(p, paymentId, "capture")).body.attempts[1].id;
    for (let hour = 1; hour <= 24; hour++)
      await runJobsNow({ db: db(), definitions: paymentJobs, cron: true, now: later(hour * HOUR) });
    const flagged = (await readPayment(p, paymentId)).body;
    expect(flagged).toMatchObject({
      status: "capturing",
      needs_reconciliation: true,
      reconciliation_reason: "unknown_outcome_23h",
    });
    // Asked again after the ninth hour's follow-up too: the sweep gave it new jobs.
    expect(captureCalls(intentRef).length).toBeGreaterThan(8);
    fake.clearFaults();
    for (const hour of [25, 26, 27])
      await runJobsNow({ db: db(), definitions: paymentJobs, cron: true, now: later(hour * HOUR) });
    expect((await readPayment(p, paymentId)).body).toMatchObject({
      status: "captured",
      captured_minor: 350,
    });
    expect(new Set(captureCalls(intentRef).map((r) => r.idempotencyKey))).toEqual(
      new Set([attemptId]),
    );
    expect(fake.captures.filter((c) => c.intent === intentRef)).toHaveLength(1);
    expect(await eventTypes(p.tenantId)).toEqual([
      "payment.authorized",
      "payment.reconciliation_required",
      "payment.captured",
    ]);
  });
});

describe("the attempt job's lease", () => {
  it("outlasts the slowest run, so no second runner asks while a slow call is still going", async () => {
    usePaymentProcessors({ card: cardOverFake(fake, { timeoutMs: 1_000 }) });
    const p = await aCardProject();
    const { bill, paymentId, intentRef } = await anAuthorizedCardPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    const attemptId = await aJournaledCapture(p, paymentId);
    fake.injectFault("POST", /\/capture$/, { kind: "stall_before_apply" }, 1);
    const slow = runJobsNow({ db: db(), definitions: [paymentAttemptJob], runnerId: "slow" });
    await until(() => captureCalls(intentRef).some((r) => r.status === "stalled"));
    // With Stripe's production timeout a retry may read the intent, capture and read again,
    // each call up to twice its timeout (the SDK resends a reset connection's request once):
    // until then the first runner may still be waiting for Stripe.
    const slowestRun = 3 * 2 * STRIPE_CALL_TIMEOUT_MS;
    const second = await runJobsNow({
      db: db(),
      definitions: [paymentAttemptJob],
      now: later(slowestRun),
      runnerId: "second",
    });
    expect(second).toBe(0);
    expect(captureCalls(intentRef)).toHaveLength(1);
    await slow;
    expect((await db().paymentAttempt.findUniqueOrThrow({ where: { id: attemptId } })).status).toBe(
      "unknown",
    );
  });
});

describe("Stripe's idempotency_error", () => {
  it("is an uncertain outcome: the payment stays in flight and the call is settled by reading", async () => {
    const p = await aCardProject();
    const { bill, paymentId, intentRef } = await anAuthorizedCardPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    const attemptId = await aJournaledCapture(p, paymentId);
    // An earlier request under this key, with other parameters (an earlier release of the
    // product, say), captured at Stripe; its answer was lost.
    await cardProcessor().capture({
      idempotencyKey: attemptId,
      account: { tenantId: p.tenantId, accountRef: p.account },
      intentRef,
      amountMinor: 200,
    });
    await runJobsNow({ db: db(), definitions: [paymentAttemptJob] });
    const refused = fake.requests.findLast((r) => r.idempotencyKey === attemptId);
    expect(refused).toMatchObject({ status: 400 });
    // As recorded (a GET would read Stripe first): in flight, its outcome unknown.
    const during = await db().payment.findUniqueOrThrow({
      where: { id: paymentId },
      include: { attempts: true },
    });
    expect(during.status).toBe("capturing");
    expect(during.attempts.find((a) => a.id === attemptId)).toMatchObject({
      status: "unknown",
      error: { kind: "uncertain", code: "idempotency_error" },
    });
    // Asked again: the read before the call shows what the key did.
    await runJobsNow({ db: db(), definitions: [paymentAttemptJob], now: later(2_000) });
    const after = (await readPayment(p, paymentId)).body;
    expect(after).toMatchObject({ status: "captured", captured_minor: 200 });
    expect(after.attempts[1]).toMatchObject({ id: attemptId, status: "succeeded" });
    expect(fake.captures.filter((c) => c.intent === intentRef)).toHaveLength(1);
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized", "payment.captured"]);
  });
});

describe("the API's wait", () => {
  it("answers within its documented wait when Stripe is slow, and the call completes after", async () => {
    usePaymentProcessors({ card: cardOverFake(fake, { timeoutMs: 10_000 }) });
    const p = await aCardProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    fake.injectFault("POST", "/v1/checkout/sessions", { kind: "hang", ms: 6_000 });
    const started = Date.now();
    const created = await authorize(p, { bill_id: bill.id, service: "card" });
    const took = Date.now() - started;
    expect(created.status).toBe(201);
    expect(took).toBeLessThan(PAYMENT_WAIT_MS + 1_500);
    expect(created.body).toMatchObject({ status: "pending", next_action: null });
    expect(created.body.attempts[0]).toMatchObject({ kind: "authorize", status: "pending" });
    await startedJobsSettled();
    const read = (await readPayment(p, created.body.id)).body;
    expect(read.next_action).toMatchObject({ type: "redirect" });
    expect(read.attempts[0]).toMatchObject({ status: "succeeded" });
    const key = created.body.attempts[0].id as string;
    expect(fake.requests.filter((r) => r.idempotencyKey === key)).toHaveLength(1);
  });
});

describe("a refund the processor fails after taking it", () => {
  it("puts the payment back to captured, flagged, with a payment.refund_failed event a webhook receives", async () => {
    const p = await aCardProject();
    const hook = await call("POST", `/v1/tenants/${p.tenantId}/webhooks`, {
      key: p.key,
      body: { url: "https://hooks.example.com/refunds", events: ["payment.refund_failed"] },
      idempotencyKey: idem(),
    });
    expect(hook.status).toBe(201);
    // In the catalogue the OpenAPI document gives for subscriptions.
    const document = JSON.stringify((await call("GET", "/v1/openapi.json")).body);
    expect(document).toContain('"payment.refund_failed"');
    const { bill, paymentId, intentRef } = await anAuthorizedCardPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    expect((await paymentAction(p, paymentId, "capture")).body.status).toBe("captured");
    expect((await paymentAction(p, paymentId, "refund")).body).toMatchObject({
      status: "refunded",
      refunded_minor: 350,
    });
    fake.takeEvents();
    fake.failRefund(intentRef);
    const events = fake.takeEvents();
    expect(events.map((e) => e.type)).toEqual(["charge.refund.updated", "refund.failed"]);
    // Both deliveries, each twice: the failure is applied once.
    expect(await deliver([...events, ...events])).toEqual([200, 200, 200, 200]);
    const back = (await readPayment(p, paymentId)).body;
    expect(back).toMatchObject({
      status: "captured",
      captured_minor: 350,
      refunded_minor: 0,
      refunded_at: null,
      needs_reconciliation: true,
      reconciliation_reason: "refund_failed",
    });
    expect(await eventTypes(p.tenantId)).toEqual([
      "payment.authorized",
      "payment.captured",
      "payment.refunded",
      "payment.refund_failed",
    ]);
    const logged = await call(
      "GET",
      `/v1/tenants/${p.tenantId}/events?type=payment.refund_failed`,
      { key: p.key },
    );
    expect(logged.body.data).toEqual([
      expect.objectContaining({
        type: "payment.refund_failed",
        data: { payment: expect.objectContaining({ id: paymentId, status: "captured" }) },
      }),
    ]);
    const deliveries = await db().webhookDelivery.findMany({
      where: { endpointId: hook.body.id },
    });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.eventId).toBe(logged.body.data[0].id);

    // A person refunds again: a new attempt under a new key, and the flag goes with the failure.
    const again = await paymentAction(p, paymentId, "refund");
    expect(again.body).toMatchObject({
      status: "refunded",
      refunded_minor: 350,
      needs_reconciliation: false,
      reconciliation_reason: null,
    });
    const refunds = again.body.attempts.filter((a: { kind: string }) => a.kind === "refund");
    expect(refunds).toHaveLength(2);
    expect(refunds[0].id).not.toBe(refunds[1].id);
  });
});

describe("a hold's expiry", () => {
  it("is the processor's own capture deadline when it gives one", async () => {
    const p = await aCardProject();
    const deadline = new Date(Math.floor(Date.now() / 1000 + 2 * 86_400) * 1000);
    const { read } = await anAuthorizedCardPayment(p, deadline);
    expect(read.expires_at).toBe(deadline.toISOString());
  });
});
