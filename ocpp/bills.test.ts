import { describe, expect, it } from "vitest";
import { finalize, startBill } from "../testing/bills";
import { db } from "../server/db";
import { call } from "../testing/api";
import { aStation } from "../testing/builders";
import { aChargerWithBill, at, reading } from "../testing/bill-chargers";
import { waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

describe("a csms bill on an OCPP 1.6 charger", () => {
  it("hands the charger its token, matches the StartTransaction carrying it, ends with the stop and finalizes on its transaction", async () => {
    const c = await aChargerWithBill({ url: gw.url, protocol: "ocpp1.6" });
    try {
      // known_tokens: only tokens the service issued are accepted, the bill's among them
      await db().tenant.update({
        where: { id: c.tenantId },
        data: { authorizationMode: "known_tokens" },
      });
      const key = "bill-start-stable-key-1";
      const started = await startBill(c.tenantId, c.key, c.bill.id, key);
      expect(started.status).toBe(202);
      expect(started.body).toMatchObject({
        scope: "bill.start",
        action: "start",
        status: "succeeded",
        request: { bill_id: c.bill.id, connector_id: c.station.connectors[0]!.id },
      });
      expect(c.calls("RemoteStartTransaction")).toEqual([
        { method: "RemoteStartTransaction", params: { connectorId: 1, idTag: c.token } },
      ]);
      // the same key replays the same operation, and nothing is sent again
      const replay = await startBill(c.tenantId, c.key, c.bill.id, key);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body.id).toBe(started.body.id);
      expect(c.calls("RemoteStartTransaction")).toHaveLength(1);
      expect(await c.readBill()).toMatchObject({
        status: "starting",
        start_operation_id: started.body.id,
      });
      const again = await startBill(c.tenantId, c.key, c.bill.id);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("bill_not_open");
      await expect(c.charger.call("Authorize", { idTag: c.token })).resolves.toEqual({
        idTagInfo: { status: "Accepted" },
      });

      const tx = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token,
        meterStart: 1000,
        timestamp: at(0),
      })) as { transactionId: number; idTagInfo: { status: string } };
      expect(tx.idTagInfo.status).toBe("Accepted");
      expect(await c.readBill()).toMatchObject({
        status: "charging",
        transaction_id: tx.transactionId,
      });
      const active = await finalize(c.tenantId, c.key, c.bill.id, {
        transaction_id: tx.transactionId,
      });
      expect(active.status).toBe(409);
      expect(active.body.error.code).toBe("transaction_active");
      await c.charger.call("MeterValues", {
        connectorId: 1,
        transactionId: tx.transactionId,
        meterValue: [reading(60, 6000)],
      });
      await c.charger.call("StopTransaction", {
        transactionId: tx.transactionId,
        meterStop: 11_000,
        timestamp: at(120),
        reason: "Local",
      });
      expect(await c.readBill()).toMatchObject({
        status: "ended",
        stop_reason: "charger",
        running_cost_minor: 350,
      });

      const final = await finalize(c.tenantId, c.key, c.bill.id, {
        transaction_id: tx.transactionId,
      });
      expect(final.status).toBe(200);
      // 10 kWh (1,000 → 11,000 Wh) at 35 c/kWh
      expect(final.body).toMatchObject({
        status: "final",
        transaction_id: tx.transactionId,
        energy_wh: 10_000,
        duration_seconds: 120,
        total_minor: 350,
      });
      const events = await call("GET", `/v1/tenants/${c.tenantId}/events?limit=100`, {
        key: c.key,
      });
      const billEvents = events.body.data.filter((e: { type: string }) =>
        e.type.startsWith("bill."),
      );
      expect(
        billEvents.map((e: { type: string; data: { reason?: string } }) => [e.type, e.data.reason]),
      ).toEqual([
        ["bill.charging_stopped", "charger"],
        ["bill.finalized", undefined],
      ]);
      // the token went to the charger and nowhere else: no answer, event or operation holds it
      const everything = JSON.stringify([
        started.body,
        replay.body,
        final.body,
        events.body,
        (await call("GET", `/v1/tenants/${c.tenantId}/operations`, { key: c.key })).body,
        (await call("GET", `/v1/tenants/${c.tenantId}/transactions`, { key: c.key })).body,
        await db().event.findMany({ where: { tenantId: c.tenantId } }),
        await db().operation.findMany({ where: { tenantId: c.tenantId } }),
      ]);
      expect(everything).not.toContain(c.token);
    } finally {
      await c.close();
    }
  });

  it("a rejected start, or an offline station, leaves the bill open to start again", async () => {
    let answer = "Rejected";
    const c = await aChargerWithBill({
      url: gw.url,
      protocol: "ocpp1.6",
      answerStart: () => Promise.resolve({ status: answer }),
    });
    try {
      const rejected = await startBill(c.tenantId, c.key, c.bill.id);
      expect(rejected.body).toMatchObject({
        status: "rejected",
        result: { error: { code: "charger_rejected" } },
      });
      expect(await c.readBill()).toMatchObject({ status: "open" });
      answer = "Accepted";
      expect((await startBill(c.tenantId, c.key, c.bill.id)).body.status).toBe("succeeded");
    } finally {
      await c.close();
    }
    const offline = await aChargerWithBill({ url: gw.url, protocol: "ocpp1.6" });
    await offline.close();
    await waitUntil(
      async () =>
        (await db().station.findUniqueOrThrow({ where: { id: offline.station.id } })).gatewayId ===
        null,
    );
    const refused = await startBill(offline.tenantId, offline.key, offline.bill.id);
    expect(refused.status).toBe(202);
    expect(refused.body).toMatchObject({
      status: "rejected",
      result: { error: { code: "station_offline" } },
    });
    expect(await offline.readBill()).toMatchObject({
      status: "open",
      start_operation_id: refused.body.id,
    });
  });

  it("matches only its own connector and its first transaction; a token on another connector matches nothing", async () => {
    const c = await aChargerWithBill({ url: gw.url, protocol: "ocpp1.6" });
    try {
      await startBill(c.tenantId, c.key, c.bill.id);
      const elsewhere = (await c.charger.call("StartTransaction", {
        connectorId: 2,
        idTag: c.token,
        meterStart: 0,
        timestamp: at(0),
      })) as { transactionId: number };
      expect(await c.readBill()).toMatchObject({ status: "starting", transaction_id: null });
      const mismatch = await finalize(c.tenantId, c.key, c.bill.id, {
        transaction_id: elsewhere.transactionId,
      });
      expect(mismatch.body.error).toMatchObject({
        code: "transaction_mismatch",
        details: { reason: "connector" },
      });
      // a driver's own token on the bill's connector is not the bill's transaction
      const driver = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: "DRIVER-CARD-1",
        meterStart: 0,
        timestamp: at(1),
      })) as { transactionId: number };
      expect(await c.readBill()).toMatchObject({ status: "starting", transaction_id: null });
      await c.charger.call("StopTransaction", {
        transactionId: driver.transactionId,
        meterStop: 10,
        timestamp: at(2),
      });
      const notTheToken = await finalize(c.tenantId, c.key, c.bill.id, {
        transaction_id: driver.transactionId,
      });
      expect(notTheToken.body.error).toMatchObject({
        code: "transaction_mismatch",
        details: { reason: "token" },
      });
      const first = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token.toLowerCase(), // 1.6 idTags compare case-blind
        meterStart: 0,
        timestamp: at(3),
      })) as { transactionId: number };
      expect(await c.readBill()).toMatchObject({
        status: "charging",
        transaction_id: first.transactionId,
      });
      await c.charger.call("StopTransaction", {
        transactionId: first.transactionId,
        meterStop: 100,
        timestamp: at(4),
      });
      const second = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token,
        meterStart: 100,
        timestamp: at(5),
      })) as { transactionId: number };
      expect(await c.readBill()).toMatchObject({
        status: "ended",
        transaction_id: first.transactionId,
      });
      const others = [
        [driver.transactionId, "not_matched"],
        [second.transactionId, "not_matched"],
        [2_000_000_000, "unknown_transaction"],
      ] as const;
      for (const [transaction_id, reason] of others) {
        const res = await finalize(c.tenantId, c.key, c.bill.id, { transaction_id });
        expect(res.status).toBe(409);
        expect(res.body.error).toMatchObject({ code: "transaction_mismatch", details: { reason } });
      }
      expect(
        (await finalize(c.tenantId, c.key, c.bill.id, { transaction_id: first.transactionId }))
          .status,
      ).toBe(200);
    } finally {
      await c.close();
    }
  });

  it("finalize: 409 while the start is dispatching; an unknown start is matched by a later transaction", async () => {
    let answer: (() => void) | undefined;
    const c = await aChargerWithBill({
      url: gw.url,
      protocol: "ocpp1.6",
      // the charger sits on the start until the test lets it go (the gateway's call timeout
      // is 1.5 s: then the start is `unknown`)
      answerStart: () =>
        new Promise((resolve) => {
          answer = () => resolve({ status: "Accepted" });
        }),
    });
    try {
      const pending = startBill(c.tenantId, c.key, c.bill.id);
      await waitUntil(() => c.calls("RemoteStartTransaction").length === 1);
      const during = await finalize(c.tenantId, c.key, c.bill.id, { transaction_id: 1 });
      expect(during.status).toBe(409);
      expect(during.body.error.code).toBe("bill_start_in_progress");
      const operation = (await pending).body as { status: string };
      expect(operation.status).toBe("unknown");
      answer?.();
      expect(await c.readBill()).toMatchObject({ status: "start_unknown" });
      const retry = await startBill(c.tenantId, c.key, c.bill.id);
      expect(retry.body.error.code).toBe("bill_not_open");
      // the charger did start it after all: its transaction still matches the bill
      const tx = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token,
        meterStart: 0,
        timestamp: at(0),
      })) as { transactionId: number };
      expect(await c.readBill()).toMatchObject({
        status: "charging",
        transaction_id: tx.transactionId,
      });
    } finally {
      await c.close();
    }
  });
});

describe("a csms bill on an OCPP 2.0.1 charger", () => {
  it("starts with RequestStartTransaction (a Central idToken) and is matched by TransactionEvent", async () => {
    const c = await aChargerWithBill({ url: gw.url, protocol: "ocpp2.0.1" });
    const event = (eventType: string, seqNo: number, s: number, extra: object = {}) =>
      c.charger.call("TransactionEvent", {
        eventType,
        timestamp: at(s),
        triggerReason: eventType === "Started" ? "RemoteStart" : "MeterValuePeriodic",
        seqNo,
        transactionInfo: { transactionId: "tx-bill-2x" },
        ...extra,
      });
    try {
      expect((await startBill(c.tenantId, c.key, c.bill.id)).body.status).toBe("succeeded");
      expect(c.calls("RequestStartTransaction")).toEqual([
        {
          method: "RequestStartTransaction",
          params: {
            evseId: 1,
            remoteStartId: expect.any(Number),
            idToken: { idToken: c.token, type: "Central" },
          },
        },
      ]);
      await event("Started", 0, 0, {
        evse: { id: 1, connectorId: 1 },
        idToken: { idToken: c.token, type: "Central" },
        meterValue: [reading(0, 500, "ocpp2.0.1")],
      });
      const transaction = await db().transaction.findFirstOrThrow({
        where: { stationId: c.station.id },
      });
      expect(await c.readBill()).toMatchObject({
        status: "charging",
        transaction_id: transaction.id,
      });
      await event("Ended", 1, 1800, {
        triggerReason: "RemoteStop",
        transactionInfo: { transactionId: "tx-bill-2x", stoppedReason: "Remote" },
        meterValue: [reading(1800, 4500, "ocpp2.0.1")],
      });
      expect(await c.readBill()).toMatchObject({ status: "ended", stop_reason: "operator" });
      const final = await finalize(c.tenantId, c.key, c.bill.id, {
        transaction_id: transaction.id,
      });
      expect(final.body).toMatchObject({ status: "final", energy_wh: 4000, total_minor: 140 });
    } finally {
      await c.close();
    }
  });

  it("finalize refuses a transaction with no start time (409 transaction_times_invalid)", async () => {
    const c = await aChargerWithBill({ url: gw.url, protocol: "ocpp2.0.1" });
    try {
      await startBill(c.tenantId, c.key, c.bill.id);
      // first seen in its Ended event: the charger never reported the start
      await c.charger.call("TransactionEvent", {
        eventType: "Ended",
        timestamp: at(60),
        triggerReason: "EVCommunicationLost",
        seqNo: 3,
        transactionInfo: { transactionId: "tx-no-start", stoppedReason: "EVDisconnected" },
        evse: { id: 1, connectorId: 1 },
        idToken: { idToken: c.token, type: "Central" },
      });
      const bill = await c.readBill();
      expect(bill).toMatchObject({ status: "ended", stop_reason: "charger" });
      const res = await finalize(c.tenantId, c.key, c.bill.id, {
        transaction_id: bill.transaction_id,
      });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: "transaction_times_invalid",
        details: { reason: "start_unknown" },
      });
      // another station's transaction is refused too, by station
      const other = await aStation(c.tenantId, c.key, { connector_count: 1 });
      const foreign = await db().transaction.create({
        data: {
          tenantId: c.tenantId,
          stationId: other.id,
          reference: "foreign",
          idToken: c.token,
          startedAt: new Date(at(0)),
          endedAt: new Date(at(9)),
        },
      });
      await db().bill.update({ where: { id: c.bill.id }, data: { transactionId: null } });
      const wrongStation = await finalize(c.tenantId, c.key, c.bill.id, {
        transaction_id: foreign.id,
      });
      expect(wrongStation.body.error).toMatchObject({
        code: "transaction_mismatch",
        details: { reason: "station" },
      });
    } finally {
      await c.close();
    }
  });
});
