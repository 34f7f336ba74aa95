import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBill } from "../server/bills/testing";
import { db } from "../server/db";
import { call } from "../server/testing/api";
import { aChargerWithBill, at, reading } from "./bill-chargers";
import { startTestGateway, waitUntil } from "./testing";

let gw: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

/** $1/kWh: the running cost in cents is the energy in Wh / 10. */
const DOLLAR_A_KWH = { rate_minor_per_kwh: 100 };

const operationsOf = (stationId: number, scope: string) =>
  db().operation.findMany({ where: { stationId, scope }, orderBy: { createdAt: "asc" } });

describe("the live cap: a managed bill's charger is stopped before its hold runs out", () => {
  it("1.6: meter values past hold − margin send exactly one stop; the bill ends with hold_limit", async () => {
    // hold $10, margin $1 (the project's default): stop at a running cost of 900 c (9 kWh)
    const c = await aChargerWithBill({
      url: gw.url,
      protocol: "ocpp1.6",
      tariff: DOLLAR_A_KWH,
      holdMinor: 1000,
    });
    try {
      await startBill(c.tenantId, c.key, c.bill.id);
      const { transactionId } = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token,
        meterStart: 0,
        timestamp: at(0),
      })) as { transactionId: number };
      const meter = (s: number, wh: number) =>
        c.charger.call("MeterValues", {
          connectorId: 1,
          transactionId,
          meterValue: [reading(s, wh)],
        });
      await meter(60, 3000);
      expect(await c.readBill()).toMatchObject({
        running_cost_minor: 300,
        running_priced_at: at(60),
        stop_reason: null,
        stop_operation_id: null,
      });
      await meter(65, 8950); // less than 10 s of readings later: not priced yet
      expect(await c.readBill()).toMatchObject({ running_cost_minor: 300 });
      await meter(120, 8990);
      expect(await c.readBill()).toMatchObject({ running_cost_minor: 899, stop_reason: null });
      await meter(180, 9000); // 900 c = 1000 − 100: stop now
      const stopping = await c.readBill();
      expect(stopping).toMatchObject({
        status: "charging",
        running_cost_minor: 900,
        stop_reason: "hold_limit",
        stop_operation_id: expect.stringMatching(/^op_/),
      });
      await waitUntil(() => c.calls("RemoteStopTransaction").length === 1);
      expect(c.calls("RemoteStopTransaction")[0]!.params).toEqual({ transactionId });
      // the charger is slow to stop: later readings make no second stop
      await meter(240, 9400);
      await meter(300, 9800);
      await c.charger.call("StopTransaction", {
        transactionId,
        meterStop: 9900,
        timestamp: at(310),
        reason: "Remote",
      });
      const stops = await operationsOf(c.station.id, "station.command");
      expect(stops.map((o) => [o.id, o.action, o.status])).toEqual([
        [stopping.stop_operation_id, "stop", "succeeded"],
      ]);
      expect(c.calls("RemoteStopTransaction")).toHaveLength(1);
      const ended = await c.readBill();
      expect(ended).toMatchObject({
        status: "ended",
        stop_reason: "hold_limit",
        running_cost_minor: 990,
      });
      const events = await call(
        "GET",
        `/v1/tenants/${c.tenantId}/events?type=bill.charging_stopped`,
        { key: c.key },
      );
      expect(events.body.data).toEqual([
        expect.objectContaining({
          resource_id: c.bill.id,
          data: { bill: ended, reason: "hold_limit" },
        }),
      ]);
      // 1.6 chargers are never sent running costs
      expect(await operationsOf(c.station.id, "bill.cost_update")).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it("2.0.1: the running cost reaches the charger as CostUpdated, at most once a minute; the stop is RequestStopTransaction", async () => {
    const c = await aChargerWithBill({
      url: gw.url,
      protocol: "ocpp2.0.1",
      tariff: DOLLAR_A_KWH,
      holdMinor: 1000,
    });
    const event = (eventType: string, seqNo: number, s: number, wh: number) =>
      c.charger.call("TransactionEvent", {
        eventType,
        timestamp: at(s),
        triggerReason: eventType === "Started" ? "RemoteStart" : "MeterValuePeriodic",
        seqNo,
        transactionInfo: { transactionId: "tx-live-2x" },
        ...(eventType === "Started"
          ? { evse: { id: 1, connectorId: 1 }, idToken: { idToken: c.token, type: "Central" } }
          : {}),
        meterValue: [reading(s, wh, "ocpp2.0.1")],
      });
    try {
      await startBill(c.tenantId, c.key, c.bill.id);
      await event("Started", 0, 0, 0); // the Transaction.Begin reading: priced at 0
      await waitUntil(() => c.calls("CostUpdated").length === 1);
      expect(c.calls("CostUpdated")[0]!.params).toEqual({
        totalCost: 0,
        transactionId: "tx-live-2x",
      });
      await event("Updated", 1, 60, 1234); // priced, but within a minute of the last CostUpdated
      expect(await c.readBill()).toMatchObject({ running_cost_minor: 123 });
      // a minute later (the throttle reads the service's clock: move the last one back)
      await db().bill.update({
        where: { id: c.bill.id },
        data: { costUpdatedAt: new Date(Date.now() - 61_000) },
      });
      await event("Updated", 2, 120, 2345);
      await waitUntil(() => c.calls("CostUpdated").length === 2);
      expect(c.calls("CostUpdated")[1]!.params).toEqual({
        totalCost: 2.35, // 2.345 kWh at $1, rounded once
        transactionId: "tx-live-2x",
      });
      await event("Updated", 3, 180, 9500);
      await waitUntil(() => c.calls("RequestStopTransaction").length === 1);
      expect(c.calls("RequestStopTransaction")[0]!.params).toEqual({
        transactionId: "tx-live-2x",
      });
      expect(c.calls("CostUpdated")).toHaveLength(2);
      const updates = await operationsOf(c.station.id, "bill.cost_update");
      expect(updates.map((o) => [o.status, o.request])).toEqual(
        [0, 235].map((cents) => [
          "succeeded",
          { bill_id: c.bill.id, transaction_id: expect.any(Number), total_cost_minor: cents },
        ]),
      );
      expect(await c.readBill()).toMatchObject({ stop_reason: "hold_limit" });
    } finally {
      await c.close();
    }
  });
});
