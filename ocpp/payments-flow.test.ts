import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aBill, aTariff, finalize, startBill } from "../testing/bills";
import { db } from "../server/db";
import { usePaymentProcessors } from "../server/payments/processors";
import { receiveStripeWebhook } from "../server/http/stripe-webhook";
import {
  aConnectedAccount,
  authorize,
  cardOverFake,
  eventTypes,
  paymentAction,
  readPayment,
} from "../testing/payments";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { startStripeFake, type StripeFake } from "../testing/stripe-fake";
import { at, reading } from "../testing/bill-chargers";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

// The whole managed flow: a real ocpp-rpc charger in strict mode, the real `stripe` SDK against
// the local Stripe fake over HTTP, and the fake's Connect events signed with the SDK's helper.
const gw = aLiveGateway();
let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterAll(async () => {
  await fake.close();
});

async function deliverEvents() {
  for (const event of fake.takeEvents()) {
    const { payload, signature } = fake.sign(event);
    const res = await receiveStripeWebhook(
      new Request("http://localhost:3000/api/stripe/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body: payload,
      }),
    );
    expect(res.status).toBe(200);
  }
}

describe("managed paid charging with a card", () => {
  it("holds, starts, charges, stops, finalizes, captures exactly the final bill and refunds it", async () => {
    const t = await aTenantWithKey();
    const password = "payments-flow-pass-01";
    const station = await aStationWithPassword(t, password);
    const starts: Record<string, unknown>[] = [];
    const charger = await aConnectedCharger(gw, station, password, "ocpp1.6", (charger) => {
      charger.handle("RemoteStartTransaction", ({ params }) => {
        starts.push(params as Record<string, unknown>);
        return Promise.resolve({ status: "Accepted" });
      });
    });
    try {
      await waitUntil(
        async () =>
          (await db().station.findUniqueOrThrow({ where: { id: station.id } })).gatewayId !== null,
      );
      await aConnectedAccount(fake, t.tenantId);
      const tariff = await aTariff(t.tenantId, t.key, { rate_minor_per_kwh: 35 });
      const bill = await aBill(t.tenantId, t.key, {
        station_id: station.id,
        connector_id: station.connectors[0]!.id,
        tariff_id: tariff.id,
        source: "csms",
        hold_minor: 2000,
      });

      const created = await authorize(t, { bill_id: bill.id, service: "card" });
      expect(created.body).toMatchObject({ status: "pending", next_action: { type: "redirect" } });
      const paymentId = created.body.id as string;
      // Not authorized yet: the bill cannot start.
      const early = await startBill(t.tenantId, t.key, bill.id);
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe("payment_not_authorized");

      const row = await db().payment.findUniqueOrThrow({ where: { id: paymentId } });
      fake.completeCheckout(row.processorCheckoutRef!, "success");
      await deliverEvents();
      expect((await db().payment.findUniqueOrThrow({ where: { id: paymentId } })).status).toBe(
        "authorized",
      );

      const started = await startBill(t.tenantId, t.key, bill.id);
      expect(started.body.status).toBe("succeeded");
      const idTag = starts[0]!.idTag as string;
      const tx = (await charger.call("StartTransaction", {
        connectorId: 1,
        idTag,
        meterStart: 1000,
        timestamp: at(0),
      })) as { transactionId: number };
      // The hold is in use while the session charges: release is refused.
      const release = await paymentAction(t, paymentId, "release");
      expect(release.body.error.code).toBe("hold_in_use");
      await charger.call("MeterValues", {
        connectorId: 1,
        transactionId: tx.transactionId,
        meterValue: [reading(60, 6000)],
      });
      await charger.call("StopTransaction", {
        transactionId: tx.transactionId,
        meterStop: 11_000,
        timestamp: at(120),
        reason: "Local",
      });
      const early2 = await paymentAction(t, paymentId, "capture");
      expect(early2.body.error.code).toBe("bill_not_final");
      const final = await finalize(t.tenantId, t.key, bill.id, {
        transaction_id: tx.transactionId,
      });
      expect(final.body).toMatchObject({ status: "final", total_minor: 350 });

      const captured = await paymentAction(t, paymentId, "capture");
      expect(captured.body).toMatchObject({ status: "captured", captured_minor: 350 });
      const intent = (await db().payment.findUniqueOrThrow({ where: { id: paymentId } }))
        .processorIntentRef!;
      expect(fake.captures.filter((c) => c.intent === intent)).toEqual([{ intent, amount: 350 }]);
      await deliverEvents();
      const refunded = await paymentAction(t, paymentId, "refund");
      expect(refunded.body).toMatchObject({ status: "refunded", refunded_minor: 350 });
      await deliverEvents();
      expect((await readPayment(t, paymentId)).body.status).toBe("refunded");
      expect(await eventTypes(t.tenantId)).toEqual([
        "payment.authorized",
        "payment.captured",
        "payment.refunded",
      ]);
    } finally {
      await charger.close({ force: true });
    }
  });
});
