/**
 * Sandbox sessions end to end through /v1, over the real gateway (strict ocpp-rpc on both sides)
 * with the gateway's own virtual-charger host (ocpp/sandbox/): start → advances → stop → settled → refund,
 * the charger's frames, the production records, concurrency and the wrong orders.
 */
import { describe, expect, it } from "vitest";
import { db } from "../db";
import { setApiKeyRateLimit } from "../keys/set-rate-limit";
import { idem } from "../../testing/api";
import { aLiveGateway } from "../../testing/live-gateway";
import {
  aWorkspace,
  SANDBOX_JOBS,
  sandbox,
  sessionUntil,
  startSession,
  type Workspace,
} from "../../testing/sandbox";

aLiveGateway({ jobs: SANDBOX_JOBS, sandbox: { tickMs: 500 } });

const advance = (w: Workspace, id: string, body: Record<string, unknown>, key = idem()) =>
  sandbox(w, "POST", `/v1/sandbox/sessions/${id}/advance`, { body, idempotencyKey: key });
const stop = (w: Workspace, id: string, key = idem()) =>
  sandbox(w, "POST", `/v1/sessions/${id}/stop`, { idempotencyKey: key });
const refund = (w: Workspace, id: string, key = idem()) =>
  sandbox(w, "POST", `/v1/sessions/${id}/refund`, { idempotencyKey: key });

async function aChargingSession(w: Workspace, body: Record<string, unknown> = {}) {
  const started = await startSession(w, body);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return sessionUntil(w, started.body.id as string, (s) => s.status === "charging");
}

/** Every event of the workspace log, paging by cursor. */
async function wholeLog(w: Workspace, limit = 100) {
  const events: { sequence: number; type: string; [k: string]: any }[] = [];
  let after = 0;
  for (;;) {
    const page = await sandbox(w, "GET", `/v1/events?after=${after}&limit=${limit}`);
    expect(page.status).toBe(200);
    events.push(...page.body.data);
    if (!page.body.has_more) return events;
    after = page.body.next_cursor;
  }
}

describe("a sandbox session from start to refund", () => {
  it("charges, pays and refunds through the production records, with the charger's OCPP frames logged", async () => {
    const w = await aWorkspace();
    const started = await startSession(w);
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      tenant_id: w.sandboxTenantId,
      team_id: w.teamId,
      tariff: { pricing_summary: expect.stringContaining("0.35") },
      payment: { service: "simulator", checkout_url: expect.stringContaining("/pay/simulator/") },
    });
    const id = started.body.id as string;
    // charging from the charger's TransactionEvent Started; its status report and the start's
    // answer being recorded may come a moment later
    const charging = await sessionUntil(
      w,
      id,
      (s: any) =>
        s.status === "charging" &&
        s.connector.status === "Charging" &&
        s.start_operation?.status !== "dispatching",
    );
    expect(charging).toMatchObject({
      station: { protocol: "ocpp2.0.1", online: true },
      connector: { status: "Charging" },
      payment: { status: "authorized" },
      bill: { status: "charging" },
      start_operation: { status: "succeeded" },
      cost: { running_minor: 0, currency: "USD" },
    });
    const first = await advance(w, id, { energy_wh: 10_000, soc_percent: 40 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      energy_wh: 10_000,
      energy_kwh: "10.000",
      target_wh: 10_000,
      pending_wh: 0,
      soc_percent: "40.000",
      elapsed_seconds: Math.ceil((10_000 * 3600) / 22_000), // at the connector's 22 kW
      power_kw: "21.991", // 10 kWh over those 1637 s
    });
    // 10 kWh at 35 cents, and 1637 s of charging at 60 cents an hour
    expect(first.body.cost.running_minor).toBeGreaterThan(350);
    const second = await advance(w, id, { energy_wh: 5_000, elapsed_seconds: 600 });
    expect(second.body).toMatchObject({ energy_wh: 15_000, pending_wh: 0, power_kw: "30.000" });

    const stopped = await stop(w, id);
    expect(stopped.status).toBe(200);
    expect(["stopping", "settled"]).toContain(stopped.body.status);
    const settled = await sessionUntil(w, id, (s) => s.status === "settled");
    expect(settled.bill).toMatchObject({ status: "final", cost_breakdown: expect.any(Object) });
    expect(settled.bill.total_minor).toBe(settled.cost.running_minor);
    expect(settled.payment).toMatchObject({
      status: "captured",
      captured_minor: settled.bill.total_minor,
    });
    expect(settled.stop_operation).toMatchObject({ status: "succeeded" });

    const refunded = await refund(w, id);
    expect(refunded.status).toBe(200);
    const done = await sessionUntil(w, id, (s) => s.status === "refunded");
    expect(done.payment).toMatchObject({
      status: "refunded",
      refunded_minor: settled.bill.total_minor,
    });

    // The production records, read with the workspace key on the sandbox tenant's own routes.
    const t = `/v1/tenants/${w.sandboxTenantId}`;
    const bill = await sandbox(w, "GET", `${t}/bills/${settled.bill.id}`);
    expect(bill.body).toMatchObject({
      status: "final",
      source: "csms",
      billing_version: "elements-v1",
      transaction_id: settled.transaction_id,
      energy_wh: 15_000,
      payment: { service: "simulator", status: "refunded" },
    });
    const transaction = await sandbox(w, "GET", `${t}/transactions/${settled.transaction_id}`);
    expect(transaction.status).toBe(200);
    expect(transaction.body).toMatchObject({ energy_wh: 15_000 });
    const station = await sandbox(w, "GET", `${t}/stations/${charging.station.id}`);
    expect(station.body).toMatchObject({ online: true, protocol: "ocpp2.0.1" });

    // Every state change of the session, in order, in the workspace log.
    const log = await wholeLog(w);
    expect(
      log.filter((e) => e.type === "sandbox_session.status_changed").map((e) => e.data.status),
    ).toEqual(["starting", "charging", "stopping", "settled", "refunded"]);
    for (const type of [
      "station.connected",
      "station.booted",
      "connector.status_changed",
      "meter.sampled",
      "operation.completed",
      "bill.finalized",
      "payment.authorized",
      "payment.captured",
      "payment.refunded",
    ])
      expect(
        log.some((e) => e.type === type),
        type,
      ).toBe(true);
    expect(log.every((e) => e.team_id === w.teamId && e.tenant_id === w.sandboxTenantId)).toBe(
      true,
    );
    expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1));

    // The virtual charger's own OCPP calls, in the station's message log as any charger's.
    const frames = await db().chargerMessage.findMany({
      where: { stationId: charging.station.id },
      orderBy: { createdAt: "asc" },
    });
    const actions = frames.map((m) => m.action);
    expect(actions[0]).toBe("BootNotification");
    expect(actions.filter((a) => a === "TransactionEvent")).toHaveLength(4); // Started, 2 Updated, Ended
    expect(actions.filter((a) => a === "StatusNotification").length).toBeGreaterThanOrEqual(10);
  });

  it("a session that draws no energy settles by releasing its hold; a refund has nothing to take back", async () => {
    const w = await aWorkspace();
    const session = await aChargingSession(w);
    expect((await stop(w, session.id)).status).toBe(200);
    const settled = await sessionUntil(w, session.id, (s) => s.status === "settled");
    expect(settled.bill).toMatchObject({ status: "final", total_minor: 0 });
    expect(settled.payment).toMatchObject({ status: "released", captured_minor: 0 });
    const nothing = await refund(w, session.id);
    expect(nothing.status).toBe(409);
    expect(nothing.body.error.code).toBe("payment_not_captured");
  });

  it("charges on the OCPP 1.6 station the same way", async () => {
    const w = await aWorkspace();
    const locations = await sandbox(w, "GET", "/v1/locations");
    const v16 = locations.body.data[0].stations.find(
      (s: { protocol: string }) => s.protocol === "ocpp1.6",
    );
    const session = await aChargingSession(w, { station_id: v16.id });
    expect(session.station).toMatchObject({ id: v16.id, protocol: "ocpp1.6" });
    const advanced = await advance(w, session.id, { energy_wh: 2_000 });
    expect(advanced.body).toMatchObject({ energy_wh: 2_000, pending_wh: 0 });
    await stop(w, session.id);
    const settled = await sessionUntil(w, session.id, (s) => s.status === "settled");
    expect(settled.bill.total_minor).toBeGreaterThanOrEqual(70);
    const actions = (await db().chargerMessage.findMany({ where: { stationId: v16.id } })).map(
      (m) => m.action,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        "BootNotification",
        "StartTransaction",
        "MeterValues",
        "StopTransaction",
      ]),
    );
  });
});

describe("advances", () => {
  it("20 concurrent identical advances under one Idempotency-Key are applied once", async () => {
    const w = await aWorkspace();
    const session = await aChargingSession(w);
    const key = idem();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => advance(w, session.id, { energy_wh: 1_234 }, key)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(19);
    expect(await db().sandboxAdvance.count({ where: { sessionId: session.id } })).toBe(1);
    const now = await sessionUntil(w, session.id, (s) => s.pending_wh === 0);
    expect(now).toMatchObject({ target_wh: 1_234, energy_wh: 1_234 });
    // the same key with another body is refused, not applied
    const other = await advance(w, session.id, { energy_wh: 99 }, key);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe("idempotency_key_reused");
  });

  it("the workspace log is gap-free under 10 concurrent sessions, read while they run", async () => {
    const w = await aWorkspace();
    await setApiKeyRateLimit({ keyId: w.keyId, perMinute: 1200, changedBy: null });
    const seen: number[] = [];
    let reading = true;
    const reader = (async () => {
      let after = 0;
      while (reading) {
        const page = await sandbox(w, "GET", `/v1/events?after=${after}&limit=7`);
        expect(page.status).toBe(200);
        seen.push(...page.body.data.map((e: { sequence: number }) => e.sequence));
        after = page.body.next_cursor;
        if (!page.body.has_more) await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const sessions = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const started = await startSession(w);
        expect(started.status, JSON.stringify(started.body)).toBe(201);
        const id = started.body.id as string;
        await sessionUntil(w, id, (s) => s.status === "charging", 30_000);
        for (let i = 0; i < 3; i++)
          expect((await advance(w, id, { energy_wh: 500 })).status).toBe(200);
        expect((await stop(w, id)).status).toBe(200);
        return sessionUntil(w, id, (s) => s.status === "settled", 30_000);
      }),
    );
    expect(new Set(sessions.map((s) => s.connector.id)).size).toBe(10);
    reading = false;
    await reader;
    const log = await wholeLog(w);
    const sequences = log.map((e) => e.sequence);
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    // the reader, paging while events were written, saw each once, in order, none skipped
    expect(seen).toEqual(sequences.slice(0, seen.length));
    expect(log.filter((e) => e.type === "sandbox_session.status_changed")).toHaveLength(40);
    expect(log[0]?.type).toBe("api_key.rate_limit_changed");
  }, 90_000);
});

describe("wrong order answers 409 with a code that says what to do", () => {
  it("advance after stop, refund before settled, stop twice with another key, refund twice", async () => {
    const w = await aWorkspace();
    const session = await aChargingSession(w);
    const early = await refund(w, session.id);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({
      code: "session_not_settled",
      details: { status: "charging" },
    });
    const stopKey = idem();
    const first = await stop(w, session.id, stopKey);
    expect(first.status).toBe(200);
    const replay = await stop(w, session.id, stopKey);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const again = await stop(w, session.id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("session_already_stopped");
    const late = await advance(w, session.id, { energy_wh: 100 });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("session_stopped");
    await sessionUntil(w, session.id, (s) => s.status === "settled");
    // the released zero bill: nothing to refund; a session with energy refunds once
    const paid = await aChargingSession(w);
    await advance(w, paid.id, { energy_wh: 1_000 });
    await stop(w, paid.id);
    await sessionUntil(w, paid.id, (s) => s.status === "settled");
    const refundKey = idem();
    expect((await refund(w, paid.id, refundKey)).status).toBe(200);
    expect((await refund(w, paid.id, refundKey)).headers.get("idempotent-replayed")).toBe("true");
    const twice = await refund(w, paid.id);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe("session_already_refunded");
  });
});
