import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { aBill } from "../../testing/bills";
import { spawnRunner } from "../../testing/jobs";
import { startStripeFake, type StripeFake } from "../../testing/stripe-fake";
import { waitUntil } from "../../testing/ocpp";
import { capturePayment } from "./capture-payment";
import { attemptJobId } from "./payment-attempt-job";
import { usePaymentProcessors } from "./processors";
import {
  aConnectedAccount,
  aPaymentsProject,
  authorize,
  cardOverFake,
  eventTypes,
  finalizeSimulated,
  readPayment,
} from "../../testing/payments";

// A real runner process, its card processor the real `stripe` SDK against the local Stripe fake,
// SIGKILLed after Stripe captured and before the outcome reached the database (the fake holds
// its answer back: no product code is changed for the test). A new runner process takes over.
let fake: StripeFake;
const children: Awaited<ReturnType<typeof spawnRunner>>[] = [];
beforeAll(async () => {
  fake = await startStripeFake();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill("SIGKILL")));
  await fake.close();
});

const aRunnerProcess = async () => {
  const child = await spawnRunner("payments", {
    STRIPE_SECRET_KEY: fake.secretKey,
    STRIPE_CONNECT_WEBHOOK_SECRET: fake.webhookSecret,
    STRIPE_API_URL: fake.url,
  });
  children.push(child);
  return child;
};

describe("a runner process killed between Stripe's capture and the database write", () => {
  it("is reconciled by the next runner with the same key: captured, and captured once", async () => {
    const p = await aPaymentsProject();
    await aConnectedAccount(fake, p.tenantId);
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const created = await authorize(p, { bill_id: bill.id, service: "card" });
    const paymentId = created.body.id as string;
    const checkoutRef = (await db().payment.findUniqueOrThrow({ where: { id: paymentId } }))
      .processorCheckoutRef!;
    fake.completeCheckout(checkoutRef, "success");
    expect((await readPayment(p, paymentId)).body.status).toBe("authorized");
    await finalizeSimulated(p, bill.id, 10_000); // 350 at 35 c/kWh
    const intent = (await db().payment.findUniqueOrThrow({ where: { id: paymentId } }))
      .processorIntentRef!;

    const doomed = await aRunnerProcess();
    // Stripe captures, and its answer never comes.
    fake.injectFault("POST", /\/capture$/, { kind: "stall_after_apply" });
    // The capture is journaled without the route's fast path, so the runner process makes the call.
    const capturing = await db().$transaction((tx) =>
      capturePayment({ tenantId: p.tenantId, paymentId, db: tx }),
    );
    const attemptId = capturing.attempts[1]!.id;
    await waitUntil(() => fake.captures.some((c) => c.intent === intent), 15_000);
    expect(fake.requests.filter((r) => r.path.endsWith("/capture"))).toEqual([
      expect.objectContaining({ idempotencyKey: attemptId, status: "stalled" }),
    ]);
    const jobId = attemptJobId(attemptId);
    expect(await db().job.findUniqueOrThrow({ where: { id: jobId } })).toMatchObject({
      status: "running",
      attempt: 1,
      lockedBy: doomed.runnerId,
    });
    await doomed.kill("SIGKILL");
    // What the dead runner left: Stripe captured, the database does not know.
    const left = await db().payment.findUniqueOrThrow({
      where: { id: paymentId },
      include: { attempts: true },
    });
    expect(left.status).toBe("capturing");
    expect(left.attempts.find((a) => a.id === attemptId)?.status).toBe("pending");

    // Its lease (60 s) lapses: moved into the past here rather than waited out.
    await db().job.update({
      where: { id: jobId },
      data: { leaseUntil: new Date(Date.now() - 1_000), runAt: new Date(Date.now() - 1_000) },
    });
    const survivor = await aRunnerProcess();
    await waitUntil(
      async () =>
        (await db().job.findUniqueOrThrow({ where: { id: jobId } })).status === "succeeded",
      20_000,
    );
    await survivor.kill("SIGTERM");

    // the second run, by the new runner, settled it
    expect((await db().job.findUniqueOrThrow({ where: { id: jobId } })).attempt).toBe(2);
    const read = await readPayment(p, paymentId);
    expect(read.body).toMatchObject({ status: "captured", captured_minor: 350 });
    expect(read.body.attempts[1]).toMatchObject({
      id: attemptId,
      kind: "capture",
      status: "succeeded",
    });
    // One capture at Stripe, and every call that could change the intent carried the attempt's key.
    expect(fake.captures.filter((c) => c.intent === intent)).toEqual([{ intent, amount: 350 }]);
    const changes = fake.requests.filter((r) => r.method === "POST" && r.path.includes(intent));
    expect(changes.length).toBeGreaterThan(0);
    expect(new Set(changes.map((r) => r.idempotencyKey))).toEqual(new Set([attemptId]));
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized", "payment.captured"]);
  }, 90_000);
});
