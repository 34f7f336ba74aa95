import { describe, expect, it } from "vitest";
import { finalize as finalizeBill, startBill } from "../../testing/bills";
import { db } from "../db";
import { call, idem } from "../../testing/api";
import { aStation, anotherKey } from "../../testing/builders";
import {
  aSession,
  aSessionProject,
  createSession,
  readSession,
  sessionsPath,
  sessionVerb,
  statusMoves,
} from "../../testing/sessions";

const refs = {
  application_reference: "booking-42",
  processor: "fleet-account",
  merchant_reference: "merchant-7",
  payment_reference: "pi_app_123",
};

describe("creating a session (rule 1)", () => {
  it("snapshots the tariff into an externally settled bill and keeps the references", async () => {
    const p = await aSessionProject();
    const res = await createSession(p.tenantId, p.key, { ...p.base, source: "csms", ...refs });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^cs_/),
      station_id: p.station.id,
      connector_id: p.base.connector_id,
      tariff_id: p.tariff.id,
      tariff_version: 1,
      source: "csms",
      ...refs,
      status: "created",
      funding_confirmed: false,
      start_operation: null,
      stop_operation: null,
      usage: null,
      total_minor: null,
      uncollected_minor: null,
      net_minor: 0,
      needs_reconciliation: false,
    });
    const bill = await call("GET", `/v1/tenants/${p.tenantId}/bills/${res.body.bill_id}`, {
      key: p.key,
    });
    expect(bill.body).toMatchObject({
      settlement_owner: "external",
      session_id: res.body.id,
      tariff_version: 1,
    });
    // a later tariff edit does not reach the session: its version is fixed
    await call("PATCH", `/v1/tenants/${p.tenantId}/tariffs/${p.tariff.id}`, {
      key: p.key,
      body: { rate_minor_per_kwh: 99 },
      idempotencyKey: idem(),
    });
    expect(await readSession(p.tenantId, p.key, res.body.id)).toMatchObject({
      tariff_version: 1,
    });
  });

  it("needs billing:write and settlement:write; refuses what is not the project's (422)", async () => {
    const p = await aSessionProject();
    for (const scopes of [
      ["billing:write", "billing:read"],
      ["settlement:write", "billing:read"],
    ] as const) {
      const key = await anotherKey(p.tenantId, [...scopes]);
      const res = await createSession(p.tenantId, key, { ...p.base, source: "simulated" });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("insufficient_scope");
    }
    const other = await aSessionProject();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...p.base, source: "csms", station_id: other.station.id }, "validation_failed"],
      [{ ...p.base, source: "csms", tariff_id: other.tariff.id }, "validation_failed"],
      [{ ...p.base, source: "csms", connector_id: other.base.connector_id }, "connector_not_found"],
      [{ ...p.base, source: "wallet" }, "validation_failed"],
      [{ ...p.base, source: "csms", processor: "" }, "validation_failed"],
      [{ ...p.base, source: "csms", card_number: "4242" }, "validation_failed"],
    ];
    for (const [body, code] of cases) {
      const res = await createSession(p.tenantId, p.key, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe(code);
    }
    expect(await db().chargingSession.count({ where: { tenantId: p.tenantId } })).toBe(0);
  });

  it("keeps one open physical session per connector (rule 7); simulated ones do not reserve", async () => {
    const p = await aSessionProject();
    const first = await aSession(p.tenantId, p.key, { ...p.base, source: "csms" });
    const second = await createSession(p.tenantId, p.key, { ...p.base, source: "csms" });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({
      code: "connector_session_open",
      details: { session_id: first.id },
    });
    // concurrent creates on a free connector: one wins
    const other = p.station.connectors[1]!.id;
    const racing = await Promise.all(
      Array.from({ length: 6 }, () =>
        createSession(p.tenantId, p.key, { ...p.base, connector_id: other, source: "csms" }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(
      (await createSession(p.tenantId, p.key, { ...p.base, source: "simulated" })).status,
    ).toBe(201);
    // canceling frees the connector
    expect((await sessionVerb(p.tenantId, p.key, first.id, "cancel")).status).toBe(200);
    expect((await createSession(p.tenantId, p.key, { ...p.base, source: "csms" })).status).toBe(
      201,
    );
  });
});

describe("a simulated session, without hardware", () => {
  it("goes from create to finalize with energy_wh, fixing total_minor and the usage (rule 4)", async () => {
    const p = await aSessionProject();
    const s = await aSession(p.tenantId, p.key, { ...p.base, source: "simulated", ...refs });
    const start = await sessionVerb(p.tenantId, p.key, s.id, "start", { funding_confirmed: true });
    expect(start.status).toBe(409);
    expect(start.body.error.code).toBe("session_simulated");
    const wrong = await sessionVerb(p.tenantId, p.key, s.id, "finalize", { transaction_id: 1 });
    expect(wrong.status).toBe(422);
    const key = idem();
    const final = await sessionVerb(
      p.tenantId,
      p.key,
      s.id,
      "finalize",
      { energy_wh: 10_000 },
      key,
    );
    expect(final.status).toBe(200);
    expect(final.body).toMatchObject({
      status: "final",
      total_minor: 350,
      currency: "USD",
      uncollected_minor: 350,
      net_minor: 0,
      usage: { transaction_id: null, energy_wh: 10_000, energy_kwh: "10.000", final: true },
      finalized_at: expect.any(String),
    });
    const replay = await sessionVerb(p.tenantId, p.key, s.id, "finalize", { energy_wh: 10_000 });
    expect(replay.status).toBe(200);
    expect(replay.body.total_minor).toBe(350);
    const other = await sessionVerb(p.tenantId, p.key, s.id, "finalize", { energy_wh: 1 });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("bill_final");
    expect(await statusMoves(p.tenantId, p.key, s.id)).toEqual([["created", "final"]]);
    const events = await call("GET", `/v1/tenants/${p.tenantId}/events?type=bill.finalized`, {
      key: p.key,
    });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].data).toMatchObject({
      session_id: s.id,
      bill: { id: s.bill_id, settlement_owner: "external", total_minor: 350 },
    });
    expect((await sessionVerb(p.tenantId, p.key, s.id, "cancel")).body.error.code).toBe(
      "session_closed",
    );
  });
});

describe("the session's bill", () => {
  it("is refused by the managed flow: start, finalize and payment are 409 bill_externally_settled", async () => {
    const p = await aSessionProject();
    const s = await aSession(p.tenantId, p.key, { ...p.base, source: "csms" });
    const started = await startBill(p.tenantId, p.key, s.bill_id);
    expect(started.status).toBe(409);
    expect(started.body.error).toMatchObject({
      code: "bill_externally_settled",
      details: { session_id: s.id },
    });
    const sim = await aSession(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const finalized = await finalizeBill(p.tenantId, p.key, sim.bill_id, { energy_wh: 1 });
    expect(finalized.status).toBe(409);
    expect(finalized.body.error.code).toBe("bill_externally_settled");
    // Nor is it paid here: the application settles it and reports on the session.
    const paid = await call("POST", `/v1/tenants/${p.tenantId}/payments`, {
      key: p.key,
      idempotencyKey: idem(),
      body: { bill_id: sim.bill_id, service: "simulator" },
    });
    expect(paid.status).toBe(409);
    expect(paid.body.error).toMatchObject({
      code: "bill_externally_settled",
      details: { session_id: sim.id },
    });
  });
});

describe("canceling (rule 6)", () => {
  it("works only without a start reservation and releases no funds", async () => {
    const p = await aSessionProject();
    const s = await aSession(p.tenantId, p.key, { ...p.base, source: "csms" });
    const canceled = await sessionVerb(p.tenantId, p.key, s.id, "cancel");
    expect(canceled.body).toMatchObject({ status: "canceled", canceled_at: expect.any(String) });
    expect((await sessionVerb(p.tenantId, p.key, s.id, "cancel")).body.status).toBe("canceled");
    const start = await sessionVerb(p.tenantId, p.key, s.id, "start", { funding_confirmed: true });
    expect(start.body.error.code).toBe("session_closed");
    expect(await statusMoves(p.tenantId, p.key, s.id)).toEqual([["created", "canceled"]]);
    expect(await db().payment.count({ where: { tenantId: p.tenantId } })).toBe(0);
  });

  it("closes the session's bill as canceled: no longer open with a hold in the bill list", async () => {
    const p = await aSessionProject();
    const s = await aSession(p.tenantId, p.key, { ...p.base, source: "csms" });
    // a refused start first (the station is offline), then the cancel
    await sessionVerb(p.tenantId, p.key, s.id, "start", { funding_confirmed: true });
    await sessionVerb(p.tenantId, p.key, s.id, "cancel");
    const bills = (query: string) =>
      call("GET", `/v1/tenants/${p.tenantId}/bills?${query}`, { key: p.key });
    const bill = await call("GET", `/v1/tenants/${p.tenantId}/bills/${s.bill_id}`, { key: p.key });
    expect(bill.body).toMatchObject({
      status: "canceled",
      session_id: s.id,
      total_minor: null,
      transaction_id: null,
      payment: null,
    });
    expect((await bills("status=open")).body.data).toEqual([]);
    expect((await bills("status=canceled")).body.data.map((b: { id: string }) => b.id)).toEqual([
      s.bill_id,
    ]);
    // a canceled bill is closed: its session refuses every verb that would move it
    const finalize = await sessionVerb(p.tenantId, p.key, s.id, "finalize", { energy_wh: 1 });
    expect(finalize.body.error.code).toBe("session_closed");
  });

  it("after a start is reserved, is 409 session_start_reserved (an offline station's refused start frees it)", async () => {
    const p = await aSessionProject();
    const s = await aSession(p.tenantId, p.key, { ...p.base, source: "csms" });
    // the station has no connection: the start is refused at once, the reservation is free
    const refused = await sessionVerb(p.tenantId, p.key, s.id, "start", {
      funding_confirmed: true,
    });
    expect(refused.status).toBe(202);
    expect(refused.body).toMatchObject({
      scope: "external.start",
      status: "rejected",
      result: { error: { code: "station_offline" } },
    });
    expect(await readSession(p.tenantId, p.key, s.id)).toMatchObject({
      status: "created",
      funding_confirmed: false, // the refused start's funding is withdrawn
      start_operation: { id: refused.body.id, status: "rejected" },
    });
    // a reservation held (a start in flight): written as the gateway would see it
    const held = await db().operation.create({
      data: {
        id: `op_held${Date.now()}`,
        tenantId: p.tenantId,
        stationId: p.station.id,
        scope: "external.start",
        action: "start",
        status: "dispatching",
        request: { session_id: s.id },
      },
    });
    await db().chargingSession.update({
      where: { id: s.id },
      data: { startOperationId: held.id },
    });
    const cancel = await sessionVerb(p.tenantId, p.key, s.id, "cancel");
    expect(cancel.status).toBe(409);
    expect(cancel.body.error).toMatchObject({
      code: "session_start_reserved",
      details: { start_operation_id: held.id },
    });
  });
});

describe("starting and stopping, before any charger is involved (rules 2, 3)", () => {
  it("needs funding_confirmed: true and billing:write, settlement:write, stations:control", async () => {
    const p = await aSessionProject();
    const s = await aSession(p.tenantId, p.key, { ...p.base, source: "csms" });
    for (const body of [
      undefined,
      {},
      { funding_confirmed: false },
      { funding_confirmed: "yes" },
    ]) {
      const res = await sessionVerb(p.tenantId, p.key, s.id, "start", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const noControl = await anotherKey(p.tenantId, ["billing:write", "settlement:write"]);
    const res = await sessionVerb(p.tenantId, noControl, s.id, "start", {
      funding_confirmed: true,
    });
    expect(res.status).toBe(403);
    const stop = await sessionVerb(p.tenantId, p.key, s.id, "stop");
    expect(stop.status).toBe(409);
    expect(stop.body.error).toMatchObject({
      code: "session_not_charging",
      details: { status: "created" },
    });
    expect(await db().operation.count({ where: { tenantId: p.tenantId } })).toBe(0);
  });
});

describe("reading sessions", () => {
  it("lists newest first with filters, keeps tenants apart, and needs billing:read", async () => {
    const p = await aSessionProject();
    const a = await aSession(p.tenantId, p.key, { ...p.base, source: "csms", ...refs });
    const b = await aSession(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const c = await aSession(p.tenantId, p.key, { ...p.base, source: "simulated" });
    await sessionVerb(p.tenantId, p.key, c.id, "finalize", { energy_wh: 100 });
    const list = async (q = "") =>
      (await call("GET", `${sessionsPath(p.tenantId)}${q}`, { key: p.key })).body;
    expect((await list()).data.map((s: { id: string }) => s.id)).toEqual([c.id, b.id, a.id]);
    expect((await list("?status=final")).data.map((s: { id: string }) => s.id)).toEqual([c.id]);
    expect((await list("?source=csms")).data.map((s: { id: string }) => s.id)).toEqual([a.id]);
    expect(
      (await list("?application_reference=booking-42")).data.map((s: { id: string }) => s.id),
    ).toEqual([a.id]);
    const page = await list("?limit=2");
    expect(page).toMatchObject({ has_more: true, next_cursor: b.id });
    expect((await list(`?after=${b.id}`)).data.map((s: { id: string }) => s.id)).toEqual([a.id]);
    expect(
      (await call("GET", `${sessionsPath(p.tenantId)}?status=nope`, { key: p.key })).status,
    ).toBe(422);

    const other = await aSessionProject();
    const foreign = await call("GET", `${sessionsPath(other.tenantId)}/${a.id}`, {
      key: other.key,
    });
    expect(foreign.status).toBe(404);
    const foreignCancel = await sessionVerb(other.tenantId, other.key, a.id, "cancel");
    expect(foreignCancel.status).toBe(404);
    for (const part of ["operations", "events", "settlement-reports"]) {
      const res = await call("GET", `${sessionsPath(other.tenantId)}/${a.id}/${part}`, {
        key: other.key,
      });
      expect(res.status, part).toBe(404);
      const own = await call("GET", `${sessionsPath(p.tenantId)}/${a.id}/${part}`, { key: p.key });
      expect(own.body.data, part).toEqual([]);
    }
    const writer = await anotherKey(p.tenantId, ["billing:write", "settlement:write"]);
    expect((await call("GET", `${sessionsPath(p.tenantId)}/${a.id}`, { key: writer })).status).toBe(
      403,
    );
  });

  it("publishes a change first seen by a client read exactly once, however many read at once", async () => {
    const p = await aSessionProject();
    const s = await aSession(p.tenantId, p.key, { ...p.base, source: "simulated" });
    // a fact no hook saw: the session was canceled behind the service's back
    await db().chargingSession.update({ where: { id: s.id }, data: { canceledAt: new Date() } });
    const reads = await Promise.all([
      ...Array.from({ length: 5 }, () => readSession(p.tenantId, p.key, s.id)),
      call("GET", sessionsPath(p.tenantId), { key: p.key }),
    ]);
    expect(reads.slice(0, 5).every((r) => r.status === "canceled")).toBe(true);
    expect(await statusMoves(p.tenantId, p.key, s.id)).toEqual([["created", "canceled"]]);
    await readSession(p.tenantId, p.key, s.id);
    expect(await statusMoves(p.tenantId, p.key, s.id)).toHaveLength(1);
  });
});

describe("another station's session", () => {
  it("does not block this station's connector", async () => {
    const p = await aSessionProject();
    const second = await aStation(p.tenantId, p.key, { connector_count: 1 });
    await aSession(p.tenantId, p.key, { ...p.base, source: "csms" });
    const res = await createSession(p.tenantId, p.key, {
      ...p.base,
      station_id: second.id,
      connector_id: second.connectors[0]!.id,
      source: "csms",
    });
    expect(res.status).toBe(201);
  });
});
