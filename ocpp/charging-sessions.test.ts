import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { sessionVerb, statusMoves } from "../testing/sessions";
import { call } from "../testing/api";
import { at, reading } from "../testing/bill-chargers";
import { aChargerWithSession } from "../testing/session-chargers";
import { waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

const funded = { funding_confirmed: true };

/** The newest status event of a session, straight from the log. */
const lastStatusEvent = (sessionId: string) =>
  db().event.findFirst({
    where: { type: "charging_session.status_changed", resourceId: sessionId },
    orderBy: { sequence: "desc" },
  });

/** Runs a charger message and checks its status event was logged within a second of sending it. */
async function publishedWithinASecond(
  sessionId: string,
  status: string,
  send: () => Promise<unknown>,
) {
  const sentAt = Date.now();
  await send();
  const event = await lastStatusEvent(sessionId);
  expect(event?.data).toMatchObject({ status });
  expect(event!.createdAt.getTime() - sentAt).toBeLessThan(1000);
}

describe("a physical external session on an OCPP 1.6 charger", () => {
  it("starts with the funding confirmed, charges with live usage, stops its own transaction and finalizes", async () => {
    const c = await aChargerWithSession({ url: gw.url, protocol: "ocpp1.6" });
    try {
      const started = await sessionVerb(c.tenantId, c.key, c.session.id, "start", funded);
      expect(started.status).toBe(202);
      expect(started.body).toMatchObject({
        scope: "external.start",
        action: "start",
        status: "succeeded",
      });
      expect(c.calls("RemoteStartTransaction")).toEqual([
        { method: "RemoteStartTransaction", params: { connectorId: 1, idTag: c.token } },
      ]);
      expect(await c.read()).toMatchObject({
        status: "starting",
        funding_confirmed: true,
        start_operation: { id: started.body.id, status: "succeeded" },
      });

      // a driver's own transaction on the other connector: never the session's
      const driver = (await c.charger.call("StartTransaction", {
        connectorId: 2,
        idTag: "DRIVER-CARD-1",
        meterStart: 0,
        timestamp: at(0),
      })) as { transactionId: number };
      let tx = { transactionId: 0 };
      await publishedWithinASecond(c.session.id, "charging", async () => {
        tx = (await c.charger.call("StartTransaction", {
          connectorId: 1,
          idTag: c.token,
          meterStart: 1000,
          timestamp: at(0),
        })) as { transactionId: number };
      });
      // 200 kWh, far above the project's default hold: no cutoff for an external session
      await c.charger.call("MeterValues", {
        connectorId: 1,
        transactionId: tx.transactionId,
        meterValue: [reading(600, 201_000)],
      });
      const live = await c.read();
      expect(live).toMatchObject({
        status: "charging",
        usage: {
          transaction_id: tx.transactionId,
          energy_wh: 200_000,
          running_cost_minor: 7000,
          final: false,
        },
      });
      expect(c.calls("RemoteStopTransaction")).toHaveLength(0);

      const early = await sessionVerb(c.tenantId, c.key, c.session.id, "finalize", {
        transaction_id: tx.transactionId,
      });
      expect(early.body.error.code).toBe("transaction_active");
      const stopped = await sessionVerb(c.tenantId, c.key, c.session.id, "stop");
      expect(stopped.status).toBe(202);
      expect(stopped.body).toMatchObject({ scope: "external.stop", status: "succeeded" });
      // its own transaction only: the driver's is untouched
      expect(c.calls("RemoteStopTransaction")).toEqual([
        { method: "RemoteStopTransaction", params: { transactionId: tx.transactionId } },
      ]);
      expect(await c.read()).toMatchObject({
        status: "stopping",
        stop_operation: { id: stopped.body.id, status: "succeeded" },
      });
      const again = await sessionVerb(c.tenantId, c.key, c.session.id, "stop");
      expect(again.body.error.code).toBe("session_stop_reserved");

      await publishedWithinASecond(c.session.id, "awaiting_bill", () =>
        c.charger.call("StopTransaction", {
          transactionId: tx.transactionId,
          meterStop: 201_000,
          timestamp: at(660),
          reason: "Remote",
        }),
      );
      const wrongTx = await sessionVerb(c.tenantId, c.key, c.session.id, "finalize", {
        transaction_id: driver.transactionId,
      });
      expect(wrongTx.body.error).toMatchObject({ code: "transaction_mismatch" });
      const energyOnPhysical = await sessionVerb(c.tenantId, c.key, c.session.id, "finalize", {
        energy_wh: 5,
      });
      expect(energyOnPhysical.status).toBe(422);
      const final = await sessionVerb(c.tenantId, c.key, c.session.id, "finalize", {
        transaction_id: tx.transactionId,
      });
      expect(final.status).toBe(200);
      expect(final.body).toMatchObject({
        status: "final",
        total_minor: 7000,
        usage: { transaction_id: tx.transactionId, energy_wh: 200_000, final: true },
      });
      const bill = await call("GET", `/v1/tenants/${c.tenantId}/bills/${c.session.bill_id}`, {
        key: c.key,
      });
      expect(bill.body).toMatchObject({ transaction_id: tx.transactionId, total_minor: 7000 });
      expect(await statusMoves(c.tenantId, c.key, c.session.id)).toEqual([
        ["created", "starting"],
        ["starting", "charging"],
        ["charging", "stopping"],
        ["stopping", "awaiting_bill"],
        ["awaiting_bill", "final"],
      ]);
      const base = `/v1/tenants/${c.tenantId}/charging-sessions/${c.session.id}`;
      const ops = await call("GET", `${base}/operations`, { key: c.key });
      expect(ops.body.data.map((o: { id: string; scope: string }) => [o.id, o.scope])).toEqual([
        [started.body.id, "external.start"],
        [stopped.body.id, "external.stop"],
      ]);
      const history = await call("GET", `${base}/events`, { key: c.key });
      expect(
        history.body.data.map((e: { type: string; data: { status?: string } }) =>
          e.type === "charging_session.status_changed" ? e.data.status : e.type,
        ),
      ).toEqual([
        "starting",
        "operation.completed",
        "charging",
        "stopping",
        "operation.completed",
        "bill.charging_stopped",
        "awaiting_bill",
        "bill.finalized",
        "final",
      ]);
      // the token went to the charger only
      const everything = JSON.stringify([
        final.body,
        await db().event.findMany({ where: { tenantId: c.tenantId } }),
        await db().operation.findMany({ where: { tenantId: c.tenantId } }),
      ]);
      expect(everything).not.toContain(c.token);
      // the connector is free for the next session
      const next = await call("POST", `/v1/tenants/${c.tenantId}/charging-sessions`, {
        key: c.key,
        body: {
          station_id: c.station.id,
          connector_id: c.station.connectors[0]!.id,
          tariff_id: final.body.tariff_id,
          source: "csms",
        },
        idempotencyKey: `next-session-${c.session.id}`,
      });
      expect(next.status).toBe(201);
    } finally {
      await c.close();
    }
  });

  it("20 concurrent starts under different keys dispatch once; 20 concurrent stops too (rule 7)", async () => {
    const c = await aChargerWithSession({ url: gw.url, protocol: "ocpp1.6" });
    try {
      const starts = await Promise.all(
        Array.from({ length: 20 }, () =>
          sessionVerb(c.tenantId, c.key, c.session.id, "start", funded),
        ),
      );
      expect(starts.filter((r) => r.status === 202)).toHaveLength(1);
      const refused = starts.filter((r) => r.status === 409);
      expect(refused).toHaveLength(19);
      expect(refused.every((r) => r.body.error.code === "session_start_reserved")).toBe(true);
      expect(c.calls("RemoteStartTransaction")).toHaveLength(1);
      expect(
        await db().operation.count({ where: { tenantId: c.tenantId, scope: "external.start" } }),
      ).toBe(1);

      const tx = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token,
        meterStart: 0,
        timestamp: at(0),
      })) as { transactionId: number };
      const stops = await Promise.all(
        Array.from({ length: 20 }, () => sessionVerb(c.tenantId, c.key, c.session.id, "stop")),
      );
      expect(stops.filter((r) => r.status === 202)).toHaveLength(1);
      expect(stops.filter((r) => r.status === 409)).toHaveLength(19);
      await waitUntil(() => c.calls("RemoteStopTransaction").length === 1);
      expect(c.calls("RemoteStopTransaction")).toEqual([
        { method: "RemoteStopTransaction", params: { transactionId: tx.transactionId } },
      ]);
      expect(
        await db().operation.count({ where: { tenantId: c.tenantId, scope: "external.stop" } }),
      ).toBe(1);
    } finally {
      await c.close();
    }
  });

  it("a rejected start frees the reservation; an unknown one holds it and needs reconciliation", async () => {
    let answer: () => Promise<Record<string, unknown>> = () =>
      Promise.resolve({ status: "Rejected" });
    const c = await aChargerWithSession({
      url: gw.url,
      protocol: "ocpp1.6",
      answerStart: () => answer(),
    });
    try {
      const rejected = await sessionVerb(c.tenantId, c.key, c.session.id, "start", funded);
      expect(rejected.body).toMatchObject({
        status: "rejected",
        result: { error: { code: "charger_rejected" } },
      });
      expect(await c.read()).toMatchObject({
        status: "created",
        needs_reconciliation: false,
        funding_confirmed: false, // a refused start no longer reads as funded
      });
      // the charger never answers: no confirmed answer is `unknown`, never resent
      answer = () => new Promise(() => {});
      const unknown = await sessionVerb(c.tenantId, c.key, c.session.id, "start", funded);
      expect(unknown.status).toBe(202);
      await waitUntil(async () => (await c.read()).status === "start_unknown");
      expect(await c.read()).toMatchObject({
        funding_confirmed: true,
        needs_reconciliation: true,
        reconciliation_reasons: ["start_unknown"],
        start_operation: { id: unknown.body.id, status: "unknown" },
      });
      expect((await sessionVerb(c.tenantId, c.key, c.session.id, "cancel")).body.error.code).toBe(
        "session_start_reserved",
      );
      expect(
        (await sessionVerb(c.tenantId, c.key, c.session.id, "start", funded)).body.error.code,
      ).toBe("session_start_reserved");
      expect(c.calls("RemoteStartTransaction")).toHaveLength(2);
      // the transaction appears after all: it is the session's
      await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token,
        meterStart: 0,
        timestamp: at(0),
      });
      expect(await c.read()).toMatchObject({ status: "charging", needs_reconciliation: false });
      expect(await statusMoves(c.tenantId, c.key, c.session.id)).toEqual([
        ["created", "starting"],
        ["starting", "created"],
        ["created", "starting"],
        ["starting", "start_unknown"],
        ["start_unknown", "charging"],
      ]);
    } finally {
      await c.close();
    }
  });

  it("flags, never guesses: its token on another connector, or a second transaction (rule 8)", async () => {
    const c = await aChargerWithSession({ url: gw.url, protocol: "ocpp1.6" });
    try {
      await sessionVerb(c.tenantId, c.key, c.session.id, "start", funded);
      await c.charger.call("StartTransaction", {
        connectorId: 2,
        idTag: c.token,
        meterStart: 0,
        timestamp: at(0),
      });
      expect(await c.read()).toMatchObject({
        status: "starting",
        usage: null,
        needs_reconciliation: true,
        reconciliation_reasons: ["token_elsewhere"],
      });
      const own = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token,
        meterStart: 0,
        timestamp: at(1),
      })) as { transactionId: number };
      await c.charger.call("StopTransaction", {
        transactionId: own.transactionId,
        meterStop: 10,
        timestamp: at(2),
      });
      await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: c.token,
        meterStart: 10,
        timestamp: at(3),
      });
      const read = await c.read();
      expect(read).toMatchObject({
        status: "awaiting_bill",
        usage: { transaction_id: own.transactionId },
        reconciliation_reasons: ["token_elsewhere", "second_transaction"],
      });
      const flagged = await call(
        "GET",
        `/v1/tenants/${c.tenantId}/charging-sessions?needs_reconciliation=true`,
        { key: c.key },
      );
      expect(flagged.body.data.map((s: { id: string }) => s.id)).toEqual([c.session.id]);
    } finally {
      await c.close();
    }
  });
});

describe("a physical external session on an OCPP 2.0.1 charger", () => {
  it("starts with RequestStartTransaction and publishes charging from the TransactionEvent within a second", async () => {
    const c = await aChargerWithSession({ url: gw.url, protocol: "ocpp2.0.1" });
    try {
      const started = await sessionVerb(c.tenantId, c.key, c.session.id, "start", funded);
      expect(started.body.status).toBe("succeeded");
      expect(c.calls("RequestStartTransaction")[0]!.params).toMatchObject({
        evseId: 1,
        idToken: { idToken: c.token, type: "Central" },
      });
      await publishedWithinASecond(c.session.id, "charging", () =>
        c.charger.call("TransactionEvent", {
          eventType: "Started",
          timestamp: at(0),
          triggerReason: "RemoteStart",
          seqNo: 0,
          transactionInfo: { transactionId: "tx-201-1" },
          evse: { id: 1, connectorId: 1 },
          idToken: { idToken: c.token, type: "Central" },
        }),
      );
      const stopped = await sessionVerb(c.tenantId, c.key, c.session.id, "stop");
      expect(stopped.body.status).toBe("succeeded");
      expect(c.calls("RequestStopTransaction")[0]!.params).toEqual({ transactionId: "tx-201-1" });
    } finally {
      await c.close();
    }
  });
});
