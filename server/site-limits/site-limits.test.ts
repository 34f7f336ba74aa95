import { describe, expect, it } from "vitest";
import { db, type Db } from "../db";
import { newId } from "../lib/ids";
import { call, idem } from "../../testing/api";
import { aLocation, aStation, aTenantWithKey, anotherKey } from "../../testing/builders";
import { getPowerLimitState } from "./power-limit-state";
import { recomputeLocation } from "./recompute";

async function aSite() {
  const t = await aTenantWithKey();
  const location = await aLocation(t.tenantId, t.key);
  const a = await aStation(t.tenantId, t.key, { location_id: location.id, connector_count: 2 });
  const b = await aStation(t.tenantId, t.key, { location_id: location.id, connector_count: 1 });
  const elsewhere = await aStation(t.tenantId, t.key, { connector_count: 1 });
  const path = `/v1/tenants/${t.tenantId}/locations/${location.id}/power-limit`;
  const put = (body: unknown, key = t.key) =>
    call("PUT", path, { key, body, idempotencyKey: idem() });
  return { ...t, location, a, b, elsewhere, path, put };
}

describe("site power limits through the API", () => {
  it("refuses invalid limits with each field named, and writes nothing", async () => {
    const s = await aSite();
    const fields = async (body: unknown) => {
      const res = await s.put(body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      return (res.body.error.details.fields as { field: string }[]).map((f) => f.field);
    };
    expect(await fields({ max_power_w: 0 })).toContain("max_power_w");
    expect(
      await fields({ max_power_w: 50_000, tolerance_band: { min_current_a: 0.05, percent: 60 } }),
    ).toEqual(["tolerance_band.min_current_a", "tolerance_band.percent"]);
    expect(await fields({ max_power_w: 1.5 })).toContain("max_power_w");
    expect(await fields({ max_power_w: 50_000, connector_defaults: { phases: 2 } })).toEqual([
      "connector_defaults.phases",
    ]);
    expect(await fields({ max_power_w: 50_000, connector_defaults: { phases: 4 } })).toContain(
      "connector_defaults.phases",
    );
    expect(
      await fields({
        max_power_w: 50_000,
        connector_defaults: { min_power_w: 8_000, max_power_w: 7_000 },
      }),
    ).toEqual(["connector_defaults.min_power_w"]);
    expect(
      await fields({ max_power_w: 50_000, station_ids: [s.a.id, s.elsewhere.id, s.a.id] }),
    ).toEqual(["station_ids", "station_ids.1"]);
    expect(
      await fields({
        max_power_w: 50_000,
        station_ids: [s.a.id],
        connector_overrides: [
          { connector_id: s.b.connectors[0]!.id, phases: 1 },
          { connector_id: s.a.connectors[0]!.id, min_power_w: 30_000 },
        ],
      }),
    ).toEqual(["connector_overrides.0.connector_id", "connector_overrides.1.min_power_w"]);
    const res = await s.put({
      max_power_w: 50_000,
      connector_defaults: { min_power_w: 8_000, max_power_w: 7_000 },
    });
    expect(res.body.error.message).toContain(
      "connector_defaults.min_power_w must not exceed connector_defaults.max_power_w",
    );
    expect(await db().sitePowerLimit.count({ where: { locationId: s.location.id } })).toBe(0);
  });

  it("sets, reads, replaces and removes a limit; 404 without one; scopes and Idempotency-Key enforced", async () => {
    const s = await aSite();
    const reader = await anotherKey(s.tenantId, ["stations:read"]);
    const controller = await anotherKey(s.tenantId, ["stations:control"]);
    const none = await call("GET", s.path, { key: reader });
    expect(none.status).toBe(404);
    expect(none.body.error).toMatchObject({
      code: "not_found",
      details: { resource: "power limit" },
    });
    const other = await aTenantWithKey();
    const foreign = await call(
      "GET",
      `/v1/tenants/${other.tenantId}/locations/${s.location.id}/power-limit`,
      { key: other.key },
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.details).toEqual({ resource: "location" });

    const forbidden = await s.put({ max_power_w: 40_000 }, reader);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe("insufficient_scope");
    const unkeyed = await call("PUT", s.path, { key: controller, body: { max_power_w: 40_000 } });
    expect(unkeyed.status).toBe(400);
    expect(unkeyed.body.error.code).toBe("idempotency_key_missing");
    expect((await call("GET", s.path, { key: controller })).status).toBe(403);

    const set = await s.put(
      {
        max_power_w: 40_000,
        station_ids: [s.a.id],
        voltage_v: 240,
        connector_defaults: { min_power_w: 1_000, max_power_w: 11_000, phases: 1 },
        connector_overrides: [{ connector_id: s.a.connectors[1]!.id, phases: 3 }],
        tolerance_band: { min_current_a: 1.5, percent: 5 },
      },
      controller,
    );
    expect(set.status).toBe(200);
    const expected = {
      location_id: s.location.id,
      max_power_w: 40_000,
      station_ids: [s.a.id],
      voltage_v: 240,
      connector_defaults: { min_power_w: 1_000, max_power_w: 11_000, phases: 1 },
      connector_overrides: [{ connector_id: s.a.connectors[1]!.id, phases: 3 }],
      tolerance_band: { min_current_a: 1.5, percent: 5 },
      live_power_w: 0,
      allocated_w: 0,
      allocations: [],
    };
    expect(set.body).toMatchObject(expected);
    const read = await call("GET", s.path, { key: reader });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(set.body);
    // the console's hook answers exactly what GET does
    expect(await getPowerLimitState(s.tenantId, s.location.id)).toEqual(read.body);
    // its recomputation was asked for in the same transaction
    expect(
      await db().job.count({
        where: {
          name: "site_limits.recompute",
          payload: { equals: { locationId: s.location.id } },
        },
      }),
    ).toBeGreaterThanOrEqual(1);

    const replaced = await s.put({ max_power_w: 60_000 });
    expect(replaced.body).toMatchObject({
      max_power_w: 60_000,
      station_ids: null,
      voltage_v: 230,
      connector_defaults: { min_power_w: 0, max_power_w: 22_080, phases: 3 },
      connector_overrides: [],
      tolerance_band: { min_current_a: 1, percent: 10 },
    });

    expect((await call("DELETE", s.path, { key: reader, idempotencyKey: idem() })).status).toBe(
      403,
    );
    const removed = await call("DELETE", s.path, { key: controller, idempotencyKey: idem() });
    expect(removed.status).toBe(202);
    expect(removed.body).toEqual({ location_id: s.location.id, operations: [] });
    expect((await call("GET", s.path, { key: reader })).status).toBe(404);
    const again = await call("DELETE", s.path, { key: controller, idempotencyKey: idem() });
    expect(again.status).toBe(404);
  });

  it("counts a session on an offline station at its connector's maximum, sending it nothing until it is online", async () => {
    const s = await aSite();
    await s.put({ max_power_w: 30_000, connector_defaults: { max_power_w: 22_080 } });
    const connector = s.a.connectors[0]!.id;
    const t = await db().transaction.create({
      data: {
        tenantId: s.tenantId,
        stationId: s.a.id,
        connectorId: connector,
        reference: "offline-1",
        startedAt: new Date(),
      },
    });
    await recomputeLocation(db(), s.location.id);
    const state = await getPowerLimitState(s.tenantId, s.location.id);
    expect(state.allocations).toEqual([
      expect.objectContaining({
        connector_id: connector,
        transaction_id: t.id,
        allocated_w: 22_080,
        allocated_current_a: 32,
        held_back_w: 0,
        profile_state: null,
      }),
    ]);
    expect(await db().operation.count({ where: { stationId: s.a.id } })).toBe(0);
    // the session ends: its share goes
    await db().transaction.update({ where: { id: t.id }, data: { endedAt: new Date() } });
    await recomputeLocation(db(), s.location.id);
    expect((await getPowerLimitState(s.tenantId, s.location.id)).allocations).toEqual([]);
  });

  it("sends nothing for a session that ended while the shares were computed, and drops its row", async () => {
    const s = await aSite();
    await s.put({ max_power_w: 30_000 });
    // station a online (a live gateway holds it), so its session is sent a share
    const gatewayId = newId("gw");
    await db().gateway.create({ data: { id: gatewayId } });
    await db().station.update({
      where: { id: s.a.id },
      data: { gatewayId, protocol: "ocpp1.6", connectedAt: new Date() },
    });
    const t = await db().transaction.create({
      data: {
        tenantId: s.tenantId,
        stationId: s.a.id,
        connectorId: s.a.connectors[0]!.id,
        reference: "42",
        startedAt: new Date(),
      },
    });
    // the charger's StopTransaction commits right after the recomputation read the sessions
    let ended = false;
    const racing = db().$extends({
      query: {
        async $queryRaw({ args, query }) {
          const result = await query(args);
          const sql = (args as unknown as { strings?: string[] }).strings?.join("?") ?? "";
          if (!ended && sql.includes("DISTINCT ON (t.connector_id)")) {
            ended = true;
            await db().transaction.update({ where: { id: t.id }, data: { endedAt: new Date() } });
          }
          return result;
        },
      },
    }) as unknown as Db;
    await expect(recomputeLocation(racing, s.location.id)).resolves.toMatchObject({ sent: 0 });
    expect(ended).toBe(true);
    expect(await db().operation.count({ where: { stationId: s.a.id } })).toBe(0);
    expect(await db().chargingProfile.count({ where: { stationId: s.a.id } })).toBe(0);
    expect(await db().sitePowerAllocation.count({ where: { locationId: s.location.id } })).toBe(0);
  });
});
