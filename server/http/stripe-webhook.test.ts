import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { aBill } from "../../testing/bills";
import { startStripeFake, type FakeEvent, type StripeFake } from "../../testing/stripe-fake";
import { usePaymentProcessors } from "../payments/processors";
import { receiveStripeWebhook } from "./stripe-webhook";
import {
  aConnectedAccount,
  aPaymentsProject,
  authorize,
  cardOverFake,
  eventTypes,
  finalizeSimulated,
  paymentAction,
} from "../../testing/payments";

// Stripe's signed Connect events, made by the fake and signed with the SDK's test-header helper,
// delivered to the receiver as the HTTP requests Stripe sends.
let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterAll(async () => {
  await fake.close();
});

async function deliver(events: FakeEvent[], opts: { secret?: string } = {}) {
  const statuses: number[] = [];
  for (const event of events) {
    const { payload, signature } = fake.sign(event, opts);
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

const status = async (id: string) =>
  (await db().payment.findUniqueOrThrow({ where: { id } })).status;

async function aPendingCardPayment() {
  const p = await aPaymentsProject();
  await aConnectedAccount(fake, p.tenantId);
  const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
  const created = await authorize(p, { bill_id: bill.id, service: "card" });
  const row = await db().payment.findUniqueOrThrow({ where: { id: created.body.id } });
  fake.takeEvents();
  return { p, bill, row };
}

describe("Stripe Connect webhooks", () => {
  it("authorize a payment by reading the intent they name; a second delivery changes nothing", async () => {
    const { p, row } = await aPendingCardPayment();
    fake.completeCheckout(row.processorCheckoutRef!, "success");
    const events = fake.takeEvents();
    expect(events.map((e) => e.type)).toEqual([
      "payment_intent.amount_capturable_updated",
      "checkout.session.completed",
    ]);
    expect(await deliver(events)).toEqual([200, 200]);
    expect(await status(row.id)).toBe("authorized");
    const reads = fake.requests.filter((r) => r.method === "GET" && r.account !== null).length;
    expect(await deliver(events)).toEqual([200, 200]);
    expect(fake.requests.filter((r) => r.method === "GET" && r.account !== null).length).toBe(
      reads,
    );
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized"]);
    const recorded = await db().processorEvent.findMany({
      where: { id: { in: events.map((e) => e.id) } },
    });
    expect(recorded.map((e) => e.processedAt !== null)).toEqual([true, true]);
  });

  it("out of order, an older event moves nothing back", async () => {
    const { p, bill, row } = await aPendingCardPayment();
    fake.completeCheckout(row.processorCheckoutRef!, "success");
    const authorizedEvents = fake.takeEvents();
    await deliver([authorizedEvents[1]!]);
    await finalizeSimulated(p, bill.id, 10_000);
    await paymentAction(p, row.id, "capture");
    const captureEvents = fake.takeEvents();
    // the capture's event first, then the authorization's late one
    expect(await deliver([...captureEvents, authorizedEvents[0]!])).toEqual(
      Array(captureEvents.length + 1).fill(200),
    );
    expect(await status(row.id)).toBe("captured");
    expect(await eventTypes(p.tenantId)).toEqual(["payment.authorized", "payment.captured"]);
  });

  it("reports a refund made at Stripe, read from the intent", async () => {
    const { p, bill, row } = await aPendingCardPayment();
    fake.completeCheckout(row.processorCheckoutRef!, "success");
    await deliver(fake.takeEvents());
    await finalizeSimulated(p, bill.id, 10_000);
    await paymentAction(p, row.id, "capture");
    const payment = await db().payment.findUniqueOrThrow({ where: { id: row.id } });
    await cardOverFake(fake).refund({
      idempotencyKey: `dashboard-${row.id}`,
      account: { tenantId: p.tenantId, accountRef: payment.processorAccount },
      intentRef: payment.processorIntentRef!,
      amountMinor: 350,
    });
    const refunds = fake.takeEvents().filter((e) => e.type === "charge.refunded");
    expect(refunds).toHaveLength(1);
    await deliver(refunds);
    expect(await db().payment.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      status: "refunded",
      refundedMinor: 350,
    });
  });

  it("refuses an unproven delivery and acts on nothing; reads the account again on account.updated", async () => {
    const { row } = await aPendingCardPayment();
    fake.completeCheckout(row.processorCheckoutRef!, "success");
    const events = fake.takeEvents();
    expect(await deliver(events, { secret: "whsec_not_ours" })).toEqual([400, 400]);
    expect(
      await db().processorEvent.count({ where: { id: { in: events.map((e) => e.id) } } }),
    ).toBe(0);
    expect(await status(row.id)).toBe("pending");

    const account = (await db().payment.findUniqueOrThrow({ where: { id: row.id } }))
      .processorAccount!;
    fake.updateAccount(account, { requirementsDue: ["external_account"] });
    const updated = fake.takeEvents().filter((e) => e.type === "account.updated");
    expect(updated).toHaveLength(1);
    expect(await deliver(updated)).toEqual([200]);
    expect(
      await db().processorEvent.findUniqueOrThrow({ where: { id: updated[0]!.id } }),
    ).toMatchObject({ type: "account.updated", account, processedAt: expect.any(Date) });
    // The event is a hint: the account is read again and the project's row says what Stripe says.
    expect(
      await db().paymentAccount.findFirstOrThrow({ where: { accountRef: account } }),
    ).toMatchObject({ requirementsDue: ["external_account"] });
  });
});
