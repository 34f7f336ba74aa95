import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { aBill } from "../../testing/bills";
import { defineJob } from "../jobs/define-job";
import { runJobsNow } from "../jobs/run-now";
import { idem } from "../../testing/api";
import { startStripeFake, type StripeFake } from "../../testing/stripe-fake";
import { paymentAttemptJob } from "./payment-attempt-job";
import { paymentReadJob } from "./payment-read-job";
import { expireHoldsJob, flagUnknownPaymentsJob } from "./payment-sweeps";
import { cardProcessor, usePaymentProcessors } from "./processors";
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

// The real `stripe` SDK (through the card processor) against the local Stripe fake over HTTP.
let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterAll(async () => {
  await fake.close();
});

const later = (ms: number) => new Date(Date.now() + ms);

/** A simulated bill paid by card, the checkout completed at the fake and the hold read back. */
async function anAuthorizedCardPayment(p: PaymentsProject) {
  const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
  const created = await authorize(p, { bill_id: bill.id, service: "card" });
  expect(created.status).toBe(201);
  const row = await db().payment.findUniqueOrThrow({ where: { id: created.body.id } });
  fake.completeCheckout(row.processorCheckoutRef!, "success");
  const read = await readPayment(p, created.body.id);
  expect(read.body.status).toBe("authorized");
  return { bill, paymentId: created.body.id as string, row };
}

async function aCardProject() {
  const p = await aPaymentsProject();
  const account = await aConnectedAccount(fake, p.tenantId);
  return { ...p, account };
}

describe("card payments on the tenant's connected account", () => {
  it("creates the checkout on the connected account with the attempt's id as the key", async () => {
    const p = await aCardProject();
    const bill = await aBill(p.tenantId, p.key, {
      ...p.base,
      source: "simulated",
      hold_minor: 2500,
    });
    const created = await authorize(p, { bill_id: bill.id, service: "card" });
    expect(created.body).toMatchObject({
      status: "pending",
      amount_minor: 2500,
      next_action: { type: "redirect", url: expect.stringContaining(fake.url) },
    });
    const attemptId = created.body.attempts[0].id as string;
    const calls = fake.requests.filter((r) => r.idempotencyKey === attemptId);
    expect(calls).toEqual([
      expect.objectContaining({ path: "/v1/checkout/sessions", account: p.account, status: 200 }),
    ]);
  });

  it("refuses card until the project's account is active with charges enabled", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "csms" });
    const none = await authorize(p, { bill_id: bill.id, service: "card" });
    expect(none.body.error).toMatchObject({
      code: "payment_account_not_ready",
      details: { account_status: "not_connected" },
    });
    await aConnectedAccount(fake, p.tenantId, { status: "onboarding", chargesEnabled: false });
    const onboarding = await authorize(p, { bill_id: bill.id, service: "card" });
    expect(onboarding.status).toBe(409);
    expect(onboarding.body.error.code).toBe("payment_account_not_ready");
    await db().paymentAccount.update({
      where: { tenantId: p.tenantId },
      data: { status: "active", chargesEnabled: true },
    });
    expect((await authorize(p, { bill_id: bill.id, service: "card" })).status).toBe(201);
  });

  it("keeps a declined authorization pending, and fails it when the checkout expires", async () => {
    const p = await aCardProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const created = await authorize(p, { bill_id: bill.id, service: "card" });
    const row = await db().payment.findUniqueOrThrow({ where: { id: created.body.id } });
    fake.completeCheckout(row.processorCheckoutRef!, { decline: "insufficient_funds" });
    expect((await readPayment(p, row.id)).body.status).toBe("pending");
    fake.expireCheckout(row.processorCheckoutRef!);
    expect((await readPayment(p, row.id)).body.status).toBe("failed");
    expect(await eventTypes(p.tenantId)).toEqual(["payment.failed"]);
  });
});

describe("uncertain outcomes", () => {
  it("asks again with the same key after a lost answer: one capture", async () => {
    const p = await aCardProject();
    const { bill, paymentId } = await anAuthorizedCardPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    // Stripe captures, the answer is lost (twice: the SDK itself retries a reset once).
    fake.injectFault("POST", /\/capture$/, { kind: "reset_after_apply" }, 2);
    const first = await paymentAction(p, paymentId, "capture");
    expect(first.body.status).toBe("capturing");
    expect(first.body.attempts[1]).toMatchObject({ kind: "capture", status: "unknown" });
    const key = first.body.attempts[1].id as string;
    await runJobsNow({ db: db(), definitions: [paymentAttemptJob], now: later(2_000) });
    const after = await readPayment(p, paymentId);
    expect(after.body).toMatchObject({ status: "captured", captured_minor: 350 });
    expect(after.body.attempts[1]).toMatchObject({ id: key, status: "succeeded" });
    const captureCalls = fake.requests.filter((r) => r.path.endsWith("/capture"));
    expect(new Set(captureCalls.map((r) => r.idempotencyKey))).toEqual(new Set([key]));
    const intent = (await db().payment.findUniqueOrThrow({ where: { id: paymentId } }))
      .processorIntentRef;
    expect(fake.captures.filter((c) => c.intent === intent)).toEqual([{ intent, amount: 350 }]);
  });

  it("reconciles a runner that died between Stripe's answer and the database write, without a second capture", async () => {
    const p = await aCardProject();
    const { bill, paymentId } = await anAuthorizedCardPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    // No fast path here: the capture is journaled, and a runner that dies after the call takes it.
    const captured = await db().$transaction(async (tx) => {
      const { capturePayment } = await import("./capture-payment");
      return capturePayment({ tenantId: p.tenantId, paymentId, db: tx });
    });
    const attemptId = captured.attempts[1]!.id;
    let release!: () => void;
    const dies = new Promise<void>((resolve) => (release = resolve));
    // The same job (same id, same payload), whose runner makes the call and then never writes.
    const dying = defineJob({
      id: paymentAttemptJob.id,
      payload: paymentAttemptJob.payload,
      handler: async ({ attempt_id }) => {
        const payment = await db().payment.findUniqueOrThrow({ where: { id: paymentId } });
        await cardProcessor().capture({
          idempotencyKey: attempt_id,
          account: { tenantId: p.tenantId, accountRef: payment.processorAccount },
          intentRef: payment.processorIntentRef!,
          amountMinor: 350,
        });
        await dies;
        throw new Error("killed");
      },
    });
    const first = runJobsNow({ db: db(), definitions: [dying], runnerId: "doomed" });
    await fake.settled();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const intent = (await db().payment.findUniqueOrThrow({ where: { id: paymentId } }))
      .processorIntentRef!;
    expect(fake.captures.filter((c) => c.intent === intent)).toHaveLength(1);
    expect((await db().payment.findUniqueOrThrow({ where: { id: paymentId } })).status).toBe(
      "capturing",
    );
    // The lease lapses; another runner takes the job over with the real definition.
    const taken = await runJobsNow({
      db: db(),
      definitions: [paymentAttemptJob],
      now: later(61_000),
      runnerId: "survivor",
    });
    expect(taken).toBe(1);
    release();
    await first.catch(() => undefined);
    const row = await db().payment.findUniqueOrThrow({
      where: { id: paymentId },
      include: { attempts: true },
    });
    expect(row).toMatchObject({ status: "captured", capturedMinor: 350 });
    expect(row.attempts.find((a) => a.id === attemptId)).toMatchObject({ status: "succeeded" });
    expect(fake.captures.filter((c) => c.intent === intent)).toHaveLength(1);
    const keys = fake.requests
      .filter((r) => r.path.includes(intent) && r.method === "POST")
      .map((r) => r.idempotencyKey);
    expect(new Set(keys)).toEqual(new Set([attemptId]));
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized", "payment.captured"]);
  });

  it("flags a payment whose call stays unknown for 23 hours, once", async () => {
    const p = await aCardProject();
    const { bill, paymentId } = await anAuthorizedCardPayment(p);
    await finalizeSimulated(p, bill.id, 10_000);
    fake.injectFault("POST", /\/capture$/, { kind: "error500" }, 1);
    const first = await paymentAction(p, paymentId, "capture");
    expect(first.body.attempts[1]).toMatchObject({ status: "unknown" });
    const sweep = { db: db(), definitions: [flagUnknownPaymentsJob], cron: true };
    await runJobsNow({ ...sweep, now: later(22 * 3_600_000) });
    expect((await readPayment(p, paymentId)).body.needs_reconciliation).toBe(false);
    await runJobsNow({ ...sweep, now: later(24 * 3_600_000) });
    await runJobsNow({ ...sweep, now: later(25 * 3_600_000) });
    const flagged = await db().payment.findUniqueOrThrow({ where: { id: paymentId } });
    expect(flagged).toMatchObject({
      needsReconciliation: true,
      reconciliationReason: "unknown_outcome_23h",
    });
    expect(await eventTypes(p.tenantId)).toEqual([
      "payment.authorized",
      "payment.reconciliation_required",
    ]);
  });

  it("shows a lapsed hold as expired", async () => {
    const p = await aCardProject();
    const { paymentId } = await anAuthorizedCardPayment(p);
    const row = await db().payment.findUniqueOrThrow({ where: { id: paymentId } });
    fake.expireAuthorization(row.processorIntentRef!);
    // the sweep asks for a read of each lapsed hold; a read job makes it
    const sweep = { db: db(), definitions: [expireHoldsJob, paymentReadJob], cron: true };
    await runJobsNow({ ...sweep, now: later(7 * 86_400_000 + 60_000) });
    await runJobsNow({ ...sweep, now: later(7 * 86_400_000 + 61_000) });
    const read = await db().payment.findUniqueOrThrow({ where: { id: paymentId } });
    expect(read.status).toBe("expired");
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized", "payment.expired"]);
    const capture = await paymentAction(p, paymentId, "capture", idem());
    expect(capture.body.error.code).toBe("payment_not_authorized");
  });
});
