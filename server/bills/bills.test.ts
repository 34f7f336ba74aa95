import { describe, expect, it } from "vitest";
import { db } from "../db";
import { BILLING_EVENT_TYPES } from "../events/list-events";
import { call, idem } from "../../testing/api";
import { aStation, aTenantWithKey, anotherKey } from "../../testing/builders";
import { aMember } from "../../testing/users";
import {
  aBill,
  aTariff,
  anAuthorizedPayment,
  createBill,
  finalize,
  startBill,
} from "../../testing/bills";

/** A project with a station and a simple 35 c/kWh tariff. */
async function aProject() {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 2 });
  const tariff = await aTariff(t.tenantId, t.key, { rate_minor_per_kwh: 35 });
  const base = {
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
    tariff_id: tariff.id,
  };
  return { ...t, station, tariff, base };
}

/** ENERGY $0.40/kWh and TIME $1.20/h, with a group discount, a merchant validation and a cap. */
const complexTariff = (cap?: number) => ({
  elements: [
    {
      price_components: [
        { type: "ENERGY", price: 0.4, step_size: 1 },
        { type: "TIME", price: 1.2, step_size: 1 },
      ],
    },
  ],
  rules: {
    group_discounts: [{ pricing_group: "staff", percent_off: 10 }],
    merchant_validations: [{ code: "SHOP", amount_off_minor: 300 }],
    ...(cap === undefined ? {} : { session_cost_cap_minor: cap }),
  },
});

const fields = (body: { error: { details: { fields: { field: string }[] } } }) =>
  body.error.details.fields.map((f) => f.field);

describe("creating a bill", () => {
  it("fixes the tariff version and the hold (the project's default), and starts open", async () => {
    const p = await aProject();
    const res = await createBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^bill_/),
      tenant_id: p.tenantId,
      station_id: p.station.id,
      connector_id: p.base.connector_id,
      tariff_id: p.tariff.id,
      tariff_version: 1,
      source: "simulated",
      billing_version: "energy-v1",
      currency: "USD",
      status: "open",
      settlement_owner: "managed",
      hold_minor: 5000,
      transaction_id: null,
      total_minor: null,
      cost_breakdown: null,
      payment: null,
    });
    const complex = await aTariff(p.tenantId, p.key, complexTariff());
    const elements = await aBill(p.tenantId, p.key, {
      ...p.base,
      tariff_id: complex.id,
      source: "csms",
      hold_minor: 2500,
    });
    expect(elements).toMatchObject({ billing_version: "elements-v1", hold_minor: 2500 });
  });

  it("refuses what it cannot bill, naming the field (422)", async () => {
    const p = await aProject();
    const other = await aProject();
    const capped = await aTariff(p.tenantId, p.key, complexTariff(800));
    const cases: [Record<string, unknown>, number, string, string[]][] = [
      [{ ...p.base }, 422, "validation_failed", ["source"]],
      [{ ...p.base, source: "wallet" }, 422, "validation_failed", ["source"]],
      [{ ...p.base, source: "csms", hold_minor: 49 }, 422, "validation_failed", ["hold_minor"]],
      [{ ...p.base, source: "csms", hold_minor: 10_001 }, 422, "validation_failed", ["hold_minor"]],
      [{ ...p.base, source: "csms", hold_minor: 1.5 }, 422, "validation_failed", ["hold_minor"]],
      // the live cap would stop at once: the hold must exceed the project's margin (100)
      [{ ...p.base, source: "csms", hold_minor: 100 }, 422, "validation_failed", ["hold_minor"]],
      [{ ...p.base, source: "simulated", extra: 1 }, 422, "validation_failed", [""]],
      [
        { ...p.base, station_id: other.station.id, source: "csms" },
        422,
        "validation_failed",
        ["station_id"],
      ],
      [
        { ...p.base, connector_id: other.base.connector_id, source: "csms" },
        422,
        "connector_not_found",
        ["connector_id"],
      ],
      [
        { ...p.base, tariff_id: other.tariff.id, source: "csms" },
        422,
        "validation_failed",
        ["tariff_id"],
      ],
      // unknown references: the engine's `unmatched`, refused at creation
      [
        { ...p.base, tariff_id: capped.id, source: "csms", pricing_group: "vip" },
        422,
        "validation_failed",
        ["pricing_group"],
      ],
      [
        {
          ...p.base,
          tariff_id: capped.id,
          source: "csms",
          pricing_group: "vip",
          merchant_validation: "NOPE",
        },
        422,
        "validation_failed",
        ["pricing_group", "merchant_validation"],
      ],
      [
        { ...p.base, tariff_id: p.tariff.id, source: "csms", merchant_validation: "SHOP" },
        422,
        "validation_failed",
        ["merchant_validation"],
      ],
      // no bill on this tariff can cost more than its cap, so no hold may be larger
      [
        { ...p.base, tariff_id: capped.id, source: "csms", hold_minor: 801 },
        422,
        "validation_failed",
        ["hold_minor"],
      ],
    ];
    for (const [body, status, code, named] of cases) {
      const res = await createBill(p.tenantId, p.key, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.code, JSON.stringify(body)).toBe(code);
      if (named[0]) expect(fields(res.body), JSON.stringify(body)).toEqual(named);
    }
    expect(await db().bill.count({ where: { tenantId: p.tenantId } })).toBe(0);
    // the cap also lowers the default hold; known references are accepted
    const ok = await aBill(p.tenantId, p.key, {
      ...p.base,
      tariff_id: capped.id,
      source: "csms",
      pricing_group: "staff",
      merchant_validation: "SHOP",
    });
    expect(ok.hold_minor).toBe(800);
  });

  it("keeps its tariff version: editing the tariff afterwards does not change the bill", async () => {
    const p = await aProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const edited = await call("PATCH", `/v1/tenants/${p.tenantId}/tariffs/${p.tariff.id}`, {
      key: p.key,
      body: { rate_minor_per_kwh: 99 },
    });
    expect(edited.body.version).toBe(2);
    const final = await finalize(p.tenantId, p.key, bill.id, { energy_wh: 10_000 });
    expect(final.status).toBe(200);
    // 10 kWh at the bill's 35 c/kWh (version 1), not the edited 99 c/kWh
    expect(final.body).toMatchObject({ tariff_version: 1, total_minor: 350 });
    const later = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    expect((await finalize(p.tenantId, p.key, later.id, { energy_wh: 10_000 })).body).toMatchObject(
      { tariff_version: 2, total_minor: 990 },
    );
  });

  it("takes the project's hold settings, which owners set on the project (PATCH)", async () => {
    const p = await aProject();
    const owner = await aMember(p.teamId, "owner");
    const path = `/v1/tenants/${p.tenantId}`;
    expect((await call("GET", path, { key: p.key })).body).toMatchObject({
      default_hold_minor: 5000,
      hold_margin_minor: 100,
    });
    const set = await call("PATCH", path, {
      key: owner.token,
      body: { default_hold_minor: 2000, hold_margin_minor: 250 },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ default_hold_minor: 2000, hold_margin_minor: 250 });
    for (const body of [
      { hold_margin_minor: 2000 }, // not below the default hold
      { default_hold_minor: 250 },
      { default_hold_minor: 10_001 },
      { hold_margin_minor: -1 },
    ]) {
      const refused = await call("PATCH", path, { key: owner.token, body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
    }
    expect((await call("PATCH", path, { key: p.key, body: { hold_margin_minor: 1 } })).status).toBe(
      403,
    );
    expect(await aBill(p.tenantId, p.key, { ...p.base, source: "csms" })).toMatchObject({
      hold_minor: 2000,
    });
    const low = await createBill(p.tenantId, p.key, { ...p.base, source: "csms", hold_minor: 250 });
    expect(fields(low.body)).toEqual(["hold_minor"]);
  });
});

describe("a bill's station", () => {
  it("cannot be deleted while it has bills, even without any transaction (409 station_has_history)", async () => {
    const p = await aProject();
    await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const res = await call("DELETE", `/v1/tenants/${p.tenantId}/stations/${p.station.id}`, {
      key: p.key,
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: "station_has_history",
      details: { transactions: 0, bills: 1 },
    });
  });
});

describe("reading bills", () => {
  it("lists newest first with filters and a bill-ID cursor", async () => {
    const p = await aProject();
    const second = await aStation(p.tenantId, p.key, { connector_count: 1 });
    const a = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const b = await aBill(p.tenantId, p.key, { ...p.base, source: "csms" });
    const c = await aBill(p.tenantId, p.key, {
      ...p.base,
      station_id: second.id,
      connector_id: second.connectors[0]!.id,
      source: "simulated",
    });
    await finalize(p.tenantId, p.key, a.id, { energy_wh: 1000 });
    const list = async (query: string) =>
      (await call("GET", `/v1/tenants/${p.tenantId}/bills${query}`, { key: p.key })).body as {
        data: { id: string }[];
        next_cursor: string | null;
        has_more: boolean;
      };
    const ids = async (query: string) => (await list(query)).data.map((x) => x.id);
    expect(await ids("")).toEqual([c.id, b.id, a.id]);
    expect(await ids("?status=final")).toEqual([a.id]);
    expect(await ids("?status=open")).toEqual([c.id, b.id]);
    expect(await ids("?source=csms")).toEqual([b.id]);
    expect(await ids(`?station_id=${second.id}`)).toEqual([c.id]);
    expect(await ids("?transaction_id=1")).toEqual([]);
    const first = await list("?limit=2");
    expect(first).toMatchObject({ next_cursor: b.id, has_more: true });
    expect(await ids(`?limit=2&after=${first.next_cursor}`)).toEqual([a.id]);
    for (const bad of ["?status=paid", "?after=42", "?limit=0", "?station_id=x"]) {
      const res = await call("GET", `/v1/tenants/${p.tenantId}/bills${bad}`, { key: p.key });
      expect(res.status, bad).toBe(422);
    }
  });

  it("keeps tenants apart: another project's bill is 404 everywhere", async () => {
    const p = await aProject();
    const q = await aProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const path = `/v1/tenants/${q.tenantId}/bills/${bill.id}`;
    expect((await call("GET", path, { key: q.key })).status).toBe(404);
    expect((await startBill(q.tenantId, q.key, bill.id)).status).toBe(404);
    expect((await finalize(q.tenantId, q.key, bill.id, { energy_wh: 1 })).status).toBe(404);
    expect(
      (await call("GET", `/v1/tenants/${q.tenantId}/bills`, { key: q.key })).body.data,
    ).toEqual([]);
    // and q's key cannot reach p's project at all
    expect(
      (await call("GET", `/v1/tenants/${p.tenantId}/bills/${bill.id}`, { key: q.key })).status,
    ).toBe(404);
    expect((await db().bill.findUniqueOrThrow({ where: { id: bill.id } })).status).toBe("open");
  });

  it("needs billing:read to read, billing:write to create and finalize", async () => {
    const p = await aProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const reader = await anotherKey(p.tenantId, ["billing:read"]);
    const stations = await anotherKey(p.tenantId, ["stations:read", "stations:control"]);
    expect((await call("GET", `/v1/tenants/${p.tenantId}/bills`, { key: stations })).status).toBe(
      403,
    );
    expect(
      (await call("GET", `/v1/tenants/${p.tenantId}/bills/${bill.id}`, { key: reader })).status,
    ).toBe(200);
    const create = await createBill(p.tenantId, reader, { ...p.base, source: "simulated" });
    expect(create.body.error).toMatchObject({
      code: "insufficient_scope",
      details: { missing_scopes: ["billing:write"] },
    });
    expect((await finalize(p.tenantId, reader, bill.id, { energy_wh: 1 })).status).toBe(403);
  });
});

describe("finalizing a simulated bill", () => {
  it("prices energy_wh on its tariff, replays the same input and refuses another (409 bill_final)", async () => {
    const p = await aProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const wrong = [
      [{}, ["energy_wh"]],
      [{ energy_wh: 1000, transaction_id: 1 }, ["transaction_id"]],
      [{ energy_wh: -1 }, ["energy_wh"]],
      [{ energy_wh: 1000, duration_seconds: 31 * 86_400 + 1 }, ["duration_seconds"]],
    ] as const;
    for (const [body, named] of wrong) {
      const res = await finalize(p.tenantId, p.key, bill.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(fields(res.body)).toEqual(named);
    }
    const final = await finalize(p.tenantId, p.key, bill.id, { energy_wh: 12_345 });
    expect(final.status).toBe(200);
    expect(final.body).toMatchObject({
      status: "final",
      energy_wh: 12_345,
      energy_kwh: "12.345",
      duration_seconds: 3600,
      subtotal_minor: 432, // 12.345 kWh × 35 c = 432.075 c, rounded once
      total_minor: 432,
      adjustments: { before_minor: 432, group_discount: null, merchant_validation: null },
      cost_breakdown: null, // energy-v1
      price_summary:
        "12.345 kWh over 1 h (1 h charging): $4.32 incl. VAT, $4.32 excl. VAT. Energy $4.32.",
      finalized_at: expect.any(String),
    });
    const again = await finalize(p.tenantId, p.key, bill.id, { energy_wh: 12_345 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(final.body);
    const other = await finalize(p.tenantId, p.key, bill.id, { energy_wh: 1 });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: "bill_final", details: { total_minor: 432 } });
    expect((await startBill(p.tenantId, p.key, bill.id)).body.error.code).toBe("bill_simulated");
  });

  it("on a complex tariff: group discount, then merchant validation, then the cap; cost_breakdown with activity", async () => {
    const p = await aProject();
    const tariff = await aTariff(p.tenantId, p.key, complexTariff(500));
    const bill = await aBill(p.tenantId, p.key, {
      ...p.base,
      tariff_id: tariff.id,
      source: "simulated",
      pricing_group: "staff",
      merchant_validation: "SHOP",
    });
    const final = await finalize(p.tenantId, p.key, bill.id, {
      energy_wh: 20_000,
      duration_seconds: 3600,
    });
    expect(final.status).toBe(200);
    // 20 kWh × $0.40 = 800 c, 1 h × $1.20 = 120 c: 920; staff −10 % (92) = 828; SHOP −300 = 528;
    // the cap takes it to 500
    expect(final.body).toMatchObject({
      billing_version: "elements-v1",
      subtotal_minor: 920,
      total_minor: 500,
      adjustments: {
        before_minor: 920,
        group_discount: { reference: "staff", discount_minor: 92, remaining_minor: 828 },
        merchant_validation: { reference: "SHOP", discount_minor: 300, remaining_minor: 528 },
        cost_cap: { cap_minor: 500, reduction_minor: 28 },
      },
      cost_breakdown: {
        energy_wh: 20_000,
        dimensions: {
          energy: { volume: 20_000, incl_vat_minor: 800 },
          time: { volume: 3600, incl_vat_minor: 120 },
        },
        total: { excl_vat_minor: 920, incl_vat_minor: 920 },
        activity: { method: "meter_values", charging_seconds: 3600, idle_seconds: 0 },
      },
    });
    expect(final.body.cost_breakdown).not.toHaveProperty("periods");
  });
  it("refuses a session the tariff's validity window does not cover (409 tariff_not_valid_at)", async () => {
    const p = await aProject();
    const later = await aTariff(p.tenantId, p.key, {
      rate_minor_per_kwh: 35,
      start_date_time: "2099-01-01T00:00:00Z",
    });
    const bill = await aBill(p.tenantId, p.key, {
      ...p.base,
      tariff_id: later.id,
      source: "simulated",
    });
    const res = await finalize(p.tenantId, p.key, bill.id, { energy_wh: 1000 });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("tariff_not_valid_at");
    expect((await db().bill.findUniqueOrThrow({ where: { id: bill.id } })).status).toBe("open");
  });
});

describe("a final bill", () => {
  it("cannot change: the database refuses an UPDATE of its amount, even outside the service", async () => {
    const p = await aProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    // before it is final, its row may change
    await db().$executeRaw`UPDATE bills SET hold_minor = 4000 WHERE id = ${bill.id}`;
    await finalize(p.tenantId, p.key, bill.id, { energy_wh: 1000 });
    for (const column of ["total_minor", "subtotal_minor", "energy_wh"]) {
      await expect(
        db().$executeRawUnsafe(`UPDATE bills SET ${column} = 1 WHERE id = $1`, bill.id),
      ).rejects.toThrow(/is final/);
    }
    await expect(
      db().bill.update({ where: { id: bill.id }, data: { status: "open", finalizedAt: null } }),
    ).rejects.toThrow();
    await expect(
      db().bill.update({ where: { id: bill.id }, data: { costBreakdown: { forged: true } } }),
    ).rejects.toThrow();
    await expect(
      db().bill.update({ where: { id: bill.id }, data: { priceSummary: "Free." } }),
    ).rejects.toThrow();
    expect(await db().bill.findUniqueOrThrow({ where: { id: bill.id } })).toMatchObject({
      status: "final",
      totalMinor: 35,
      holdMinor: 4000,
    });
  });

  it("is announced by bill.finalized with the bill, to billing readers only; no token anywhere", async () => {
    const p = await aProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const final = await finalize(p.tenantId, p.key, bill.id, { energy_wh: 2000 });
    const events = await call("GET", `/v1/tenants/${p.tenantId}/events?type=bill.finalized`, {
      key: p.key,
    });
    expect(events.body.data).toEqual([
      expect.objectContaining({
        type: "bill.finalized",
        resource_id: bill.id,
        data: { bill: final.body },
      }),
    ]);
    const stationsOnly = await anotherKey(p.tenantId, ["stations:read"]);
    const hidden = await call("GET", `/v1/tenants/${p.tenantId}/events`, { key: stationsOnly });
    expect(hidden.body.data.map((e: { type: string }) => e.type)).not.toContain("bill.finalized");
    const token = (await db().bill.findUniqueOrThrow({ where: { id: bill.id } })).chargingToken;
    const everything = JSON.stringify([
      final.body,
      events.body,
      (await call("GET", `/v1/tenants/${p.tenantId}/bills`, { key: p.key })).body,
      await db().event.findMany({ where: { tenantId: p.tenantId } }),
    ]);
    expect(token).toMatch(/^B[2-9A-Z]{19}$/);
    expect(everything).not.toContain(token);
  });
});

describe("bill events", () => {
  it("are billing events: subscribing to them needs billing:read, and reading them too", async () => {
    const p = await aProject();
    const post = (key: string, events: string[]) =>
      call("POST", `/v1/tenants/${p.tenantId}/webhooks`, {
        key,
        body: { url: "https://hooks.example.com/bills", events },
        idempotencyKey: idem(),
      });
    const stationsOnly = await anotherKey(p.tenantId, ["webhooks:write", "stations:read"]);
    for (const type of ["bill.finalized", "bill.charging_stopped"]) {
      const refused = await post(stationsOnly, [type]);
      expect(refused.status, type).toBe(403);
      expect(refused.body.error.details.missing_scopes).toEqual(["billing:read"]);
    }
    expect((await post(p.key, ["bill.finalized", "bill.charging_stopped"])).status).toBe(201);
    expect(BILLING_EVENT_TYPES).toEqual(
      expect.arrayContaining(["bill.finalized", "bill.charging_stopped"]),
    );
  });
});

describe("starting a bill, before any charger is involved", () => {
  it("needs billing:write and stations:control, a csms bill, an authorized card payment, an open bill", async () => {
    const p = await aProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "csms" });
    const writer = await anotherKey(p.tenantId, ["billing:write", "billing:read"]);
    const denied = await startBill(p.tenantId, writer, bill.id);
    expect(denied.status).toBe(403);
    expect(denied.body.error.details.missing_scopes).toEqual(["stations:control"]);
    const noPayment = await startBill(p.tenantId, p.key, bill.id);
    expect(noPayment.status).toBe(409);
    expect(noPayment.body.error).toMatchObject({
      code: "payment_not_authorized",
      details: { reason: "no_payment", payment_id: null },
    });
    const payment = await anAuthorizedPayment(bill.id);
    for (const [change, reason] of [
      [{ status: "pending" }, "not_authorized"],
      [{ service: "simulator" }, "simulator_payment"],
      [{ needsReconciliation: true }, "needs_reconciliation"],
      [{ expiresAt: new Date(Date.now() - 1000) }, "hold_expired"],
    ] as const) {
      await db().payment.update({ where: { id: payment.id }, data: change });
      const res = await startBill(p.tenantId, p.key, bill.id);
      expect(res.body.error, reason).toMatchObject({
        code: "payment_not_authorized",
        details: { reason, payment_id: payment.id },
      });
      await db().payment.update({
        where: { id: payment.id },
        data: {
          status: "authorized",
          service: "card",
          needsReconciliation: false,
          expiresAt: new Date(Date.now() + 86_400_000),
        },
      });
    }
    // the bill shows its payment; the station has no charger, so the start is rejected at once
    const offline = await startBill(p.tenantId, p.key, bill.id);
    expect(offline.status).toBe(202);
    expect(offline.body).toMatchObject({
      scope: "bill.start",
      status: "rejected",
      request: { bill_id: bill.id, connector_id: p.base.connector_id },
      result: { error: { code: "station_offline" } },
    });
    const read = await call("GET", `/v1/tenants/${p.tenantId}/bills/${bill.id}`, { key: p.key });
    expect(read.body).toMatchObject({
      status: "open",
      start_operation_id: offline.body.id,
      payment: { id: payment.id, service: "card", status: "authorized" },
    });
    // a bill that is not open is refused
    await db().bill.update({ where: { id: bill.id }, data: { status: "start_unknown" } });
    const notOpen = await startBill(p.tenantId, p.key, bill.id);
    expect(notOpen.status).toBe(409);
    expect(notOpen.body.error).toMatchObject({
      code: "bill_not_open",
      details: { bill_status: "start_unknown" },
    });
  });
});
