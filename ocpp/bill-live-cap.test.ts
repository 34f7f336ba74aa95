import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { capSweepJob, sweepLiveCaps } from "../server/bills/cap-sweep";
import { startBill } from "../testing/bills";
import { db } from "../server/db";
import { runJobsNow } from "../server/jobs/run-now";
import { call } from "../testing/api";
import { deliveryJob } from "../server/webhooks/deliver-webhook";
import { aReceiver } from "../testing/webhooks";
import { aChargerWithBill, at, reading } from "../testing/bill-chargers";
import { startTestGateway, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

// Test mode: webhook deliveries may go to loopback (documented non-production setting).
process.env.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS = "true";

const gw = aLiveGateway();

/** $1/kWh: the running cost in cents is the energy in Wh / 10. */
const DOLLAR_A_KWH = { rate_minor_per_kwh: 100 };

const operationsOf = (stationId: number, scope: string) =>
  db().operation.findMany({ where: { stationId, scope }, orderBy: { createdAt: "asc" } });

describe("the live cap: a managed bill's charger is stopped before its hold runs out", () => {
  it("1.6: meter values past hold − margin send one stop; an accepted stop is not sent again while the charger stops; the bill ends with hold_limit", async () => {
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
      // the charger is slow to stop: later readings make no second stop, nor does the cap's
      // sweep while the accepted stop's minute runs
      await meter(240, 9400);
      await meter(300, 9800);
      await waitUntil(
        async () => (await operationsOf(c.station.id, "bill.cap"))[0]?.status === "succeeded",
      );
      expect(await sweepLiveCaps({ db: db(), now: new Date(Date.now() + 50_000) })).toEqual([]);
      await c.charger.call("StopTransaction", {
        transactionId,
        meterStop: 9900,
        timestamp: at(310),
        reason: "Remote",
      });
      const stops = await operationsOf(c.station.id, "bill.cap");
      expect(stops.map((o) => [o.id, o.action, o.status])).toEqual([
        [stopping.stop_operation_id, "stop", "succeeded"],
      ]);
      expect(await operationsOf(c.station.id, "station.command")).toEqual([]);
      expect(c.calls("RemoteStopTransaction")).toHaveLength(1);
      const ended = await c.readBill();
      expect(ended).toMatchObject({
        status: "ended",
        stop_reason: "hold_limit",
        running_cost_minor: 990,
        cap_attempts: 1,
        needs_reconciliation: false, // 990 ≤ the 1000 hold: capturable
      });
      // the transaction ended: the cap sends nothing more, however late
      expect(await sweepLiveCaps({ db: db(), now: new Date(Date.now() + 3_600_000) })).toEqual([]);
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

const stripe = new Stripe("sk_test_unused", { telemetry: false });
const loopback = { allowPrivate: true, resolve: () => Promise.resolve(["127.0.0.1"]) };
/** The service's clock `s` seconds from now, for the cap's sweep. */
const later = (s: number) => new Date(Date.now() + s * 1000);

describe("the live cap holds: it keeps stopping a charger until the transaction ends", () => {
  it("1.6: a charger that rejects the stop is sent it again, then ChangeAvailability Inoperative; past the hold the bill is flagged and the operator's webhook receives bill.cap_exceeded", async () => {
    const receiver = await aReceiver();
    const c = await aChargerWithBill({
      url: gw.url,
      protocol: "ocpp1.6",
      tariff: DOLLAR_A_KWH,
      holdMinor: 1000,
      answerStop: () => Promise.resolve({ status: "Rejected" }),
      answers: { ChangeAvailability: () => Promise.resolve({ status: "Scheduled" }) },
    });
    const capOps = () => operationsOf(c.station.id, "bill.cap");
    /** the operation the cap follows: the bill's stop_operation_id */
    const lastCapOp = async () => {
      const id = (await c.readBill()).stop_operation_id as string | null;
      return id ? db().operation.findUnique({ where: { id } }) : null;
    };
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
      await meter(60, 9000); // 900 c = hold − margin: the first stop
      await waitUntil(async () => (await lastCapOp())?.status === "rejected");
      expect(c.calls("RemoteStopTransaction")[0]!.params).toEqual({ transactionId });

      // refused: asked again after 10 s (the sweep's clock is moved, not waited for)
      expect(await sweepLiveCaps({ db: db() })).toEqual([]);
      expect(await sweepLiveCaps({ db: db(), now: later(11) })).toHaveLength(1);
      await waitUntil(() => c.calls("RemoteStopTransaction").length === 2);
      await waitUntil(async () => (await lastCapOp())?.status === "rejected");
      // refused twice: 20 s, then the connector is taken out of service
      expect(await sweepLiveCaps({ db: db(), now: later(11) })).toEqual([]);
      expect(await sweepLiveCaps({ db: db(), now: later(25) })).toHaveLength(1);
      await waitUntil(() => c.calls("ChangeAvailability").length === 1);
      expect(c.calls("ChangeAvailability")[0]!.params).toEqual({
        connectorId: 1,
        type: "Inoperative",
      });
      await waitUntil(async () => (await lastCapOp())?.status === "succeeded");
      expect(await c.readBill()).toMatchObject({
        status: "charging",
        cap_attempts: 3,
        stop_operation_id: (await lastCapOp())!.id,
        needs_reconciliation: false, // 900 ≤ 1000
      });

      // the charger charges on past the hold, with no stop confirmed: flagged at once, and an
      // operator's webhook endpoint hears it
      const hook = await call("POST", `/v1/tenants/${c.tenantId}/webhooks`, {
        key: c.key,
        body: { url: receiver.url, events: ["bill.cap_exceeded"] },
      });
      expect(hook.status).toBe(201);
      await meter(120, 10_010);
      const flagged = await c.readBill();
      expect(flagged).toMatchObject({
        status: "charging",
        running_cost_minor: 1001,
        needs_reconciliation: true,
        reconciliation_reason: "hold_exceeded",
        hold_exceeded_at: expect.any(String),
      });
      const events = await call("GET", `/v1/tenants/${c.tenantId}/events?type=bill.cap_exceeded`, {
        key: c.key,
      });
      expect(events.body.data).toEqual([
        expect.objectContaining({
          resource_id: c.bill.id,
          data: { bill: flagged, transaction_ended: false },
        }),
      ]);
      // the operator's endpoint receives it, signed
      await runJobsNow({ db: db(), definitions: [deliveryJob(() => loopback)] });
      expect(receiver.received).toHaveLength(1);
      const delivered = stripe.webhooks.constructEvent(
        receiver.received[0]!.body,
        String(receiver.received[0]!.headers["service-signature"]),
        hook.body.secret as string,
      ) as unknown as { type: string; data: { bill: { id: string } } };
      expect(delivered).toMatchObject({
        type: "bill.cap_exceeded",
        data: { bill: { id: c.bill.id, needs_reconciliation: true }, transaction_ended: false },
      });
      // once: later readings past the hold flag nothing again
      await meter(180, 10_500);
      const again = await call("GET", `/v1/tenants/${c.tenantId}/events?type=bill.cap_exceeded`, {
        key: c.key,
      });
      expect(again.body.data).toHaveLength(1);

      // an accepted (scheduled) call gets a minute to end the transaction; then the stop again
      expect(await sweepLiveCaps({ db: db(), now: later(50) })).toEqual([]);
      expect(await sweepLiveCaps({ db: db(), now: later(70) })).toHaveLength(1);
      await waitUntil(() => c.calls("RemoteStopTransaction").length === 3);
      await waitUntil(async () => (await lastCapOp())?.status === "rejected");

      // the transaction ends at last: nothing more is sent, however late
      await c.charger.call("StopTransaction", {
        transactionId,
        meterStop: 10_600,
        timestamp: at(200),
        reason: "Local",
      });
      expect(await sweepLiveCaps({ db: db(), now: later(3_600) })).toEqual([]);
      expect(await c.readBill()).toMatchObject({
        status: "ended",
        stop_reason: "hold_limit",
        running_cost_minor: 1060,
        cap_attempts: 4,
        needs_reconciliation: true,
      });
      expect((await capOps()).map((o) => [o.action, o.status, o.request])).toEqual(
        [
          ["stop", "rejected"],
          ["stop", "rejected"],
          ["availability", "succeeded"],
          ["stop", "rejected"],
        ].map(([means, status], i) => [
          means,
          status,
          { bill_id: c.bill.id, transaction_id: transactionId, means, attempt: i + 1 },
        ]),
      );
    } finally {
      await c.close();
      await receiver.close();
    }
  });

  it("1.6: a session that ends above the hold after an accepted stop is flagged at its end (transaction_ended: true)", async () => {
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
      await c.charger.call("MeterValues", {
        connectorId: 1,
        transactionId,
        meterValue: [reading(60, 9500)],
      });
      await waitUntil(() => c.calls("RemoteStopTransaction").length === 1);
      expect(await c.readBill()).toMatchObject({ needs_reconciliation: false });
      // the stop is accepted, but the charger's last readings put the session past the hold
      await c.charger.call("StopTransaction", {
        transactionId,
        meterStop: 10_200,
        timestamp: at(90),
        reason: "Remote",
      });
      const ended = await c.readBill();
      expect(ended).toMatchObject({
        status: "ended",
        running_cost_minor: 1020,
        needs_reconciliation: true,
        reconciliation_reason: "hold_exceeded",
      });
      const events = await call("GET", `/v1/tenants/${c.tenantId}/events?type=bill.cap_exceeded`, {
        key: c.key,
      });
      expect(events.body.data.map((e: { data: unknown }) => e.data)).toEqual([
        { bill: ended, transaction_ended: true },
      ]);
    } finally {
      await c.close();
    }
  });

  it("2.0.1: a charger that drops the connection mid-stop is sent the stop again when it reconnects, after a gateway restart too; it is flagged meanwhile", async () => {
    // the cap's own cron job, run by each gateway process's runner (fast, for the test)
    const jobs = () => [capSweepJob({ everyMs: 1_000 })];
    const first = await startTestGateway({ jobs: jobs() });
    let second: Awaited<ReturnType<typeof startTestGateway>> | undefined;
    let dropping = true;
    const c = await aChargerWithBill({
      url: first.url,
      protocol: "ocpp2.0.1",
      tariff: DOLLAR_A_KWH,
      holdMinor: 1000,
      // the first stop: the charger's connection drops before it answers
      answerStop: () => {
        if (!dropping) return Promise.resolve({ status: "Accepted" });
        void c.close();
        return new Promise(() => {});
      },
    });
    const event = (eventType: string, seqNo: number, s: number, wh: number) =>
      c.charger.call("TransactionEvent", {
        eventType,
        timestamp: at(s),
        triggerReason: eventType === "Started" ? "RemoteStart" : "MeterValuePeriodic",
        seqNo,
        transactionInfo: { transactionId: "tx-cap-drop" },
        ...(eventType === "Started"
          ? { evse: { id: 1, connectorId: 1 }, idToken: { idToken: c.token, type: "Central" } }
          : {}),
        meterValue: [reading(s, wh, "ocpp2.0.1")],
      });
    const capOps = () => operationsOf(c.station.id, "bill.cap");
    const firstStop = async () => {
      const id = (await c.readBill()).stop_operation_id as string | null;
      return id ? db().operation.findUnique({ where: { id } }) : null;
    };
    const station = () => db().station.findUniqueOrThrow({ where: { id: c.station.id } });
    try {
      await startBill(c.tenantId, c.key, c.bill.id);
      await event("Started", 0, 0, 0);
      await event("Updated", 1, 60, 9000); // hold − margin: the stop, and the connection drops
      await waitUntil(async () => (await station()).gatewayId === null);
      await waitUntil(async () => (await firstStop())?.status === "unknown");
      expect(c.calls("RequestStopTransaction")).toHaveLength(1);

      // the gateway restarts while the charger is away: nothing of the cap lived in it
      await first.close();
      second = await startTestGateway({ jobs: jobs() });
      dropping = false;
      const back = await c.reconnect(second.url);
      // on the new connection the stop is sent again (the sweep sees the newer connection)
      await waitUntil(() => c.calls("RequestStopTransaction").length === 2);
      expect(c.calls("RequestStopTransaction")[1]!.params).toEqual({
        transactionId: "tx-cap-drop",
      });
      // before the charger ends the transaction it reports energy past the hold: flagged
      await back.call("TransactionEvent", {
        eventType: "Updated",
        timestamp: at(120),
        triggerReason: "MeterValuePeriodic",
        seqNo: 2,
        transactionInfo: { transactionId: "tx-cap-drop" },
        meterValue: [reading(120, 10_100, "ocpp2.0.1")],
      });
      const flagged = await c.readBill();
      expect(flagged).toMatchObject({
        status: "charging",
        running_cost_minor: 1010,
        needs_reconciliation: true,
        reconciliation_reason: "hold_exceeded",
      });
      const events = await call("GET", `/v1/tenants/${c.tenantId}/events?type=bill.cap_exceeded`, {
        key: c.key,
      });
      expect(events.body.data.map((e: { data: unknown }) => e.data)).toEqual([
        { bill: flagged, transaction_ended: false },
      ]);
      await back.call("TransactionEvent", {
        eventType: "Ended",
        timestamp: at(125),
        triggerReason: "RemoteStop",
        seqNo: 3,
        transactionInfo: { transactionId: "tx-cap-drop", stoppedReason: "Remote" },
        meterValue: [reading(125, 10_120, "ocpp2.0.1")],
      });
      expect(await c.readBill()).toMatchObject({
        status: "ended",
        stop_reason: "hold_limit",
        cap_attempts: 2,
      });
      const ops = await capOps();
      expect(ops.map((o) => [o.action, o.status])).toEqual([
        ["stop", "unknown"],
        ["stop", "succeeded"],
      ]);
      expect(ops[0]!.result).toMatchObject({ error: { code: "dispatch_unconfirmed" } });
    } finally {
      await c.close();
      await second?.close();
    }
  });
});
