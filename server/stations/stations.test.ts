import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call, idem } from "../../testing/api";
import { aLocation, aStation, aTenantWithKey, uniqueStationName } from "../../testing/builders";

describe("stations", () => {
  it("registers a station with connectors that have their own IDs and the default connection_url", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const location = await aLocation(tenantId, key);
    const name = uniqueStationName("CP");
    const res = await call("POST", `/v1/tenants/${tenantId}/stations`, {
      key,
      body: { name, location_id: location.id, connector_count: 3, external_reference: "north-1" },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tenant_id: tenantId,
      name,
      location_id: location.id,
      external_reference: "north-1",
      online: false,
      protocol: null,
      last_seen: null,
      open_faults: [],
    });
    expect(res.body.connection_url).toMatch(new RegExp(`^ws://localhost:9000/ocpp/${name}$`));
    const connectors = res.body.connectors as {
      id: number;
      evse_number: number;
      connector_number: number;
    }[];
    expect(connectors.map((c) => [c.evse_number, c.connector_number])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(new Set(connectors.map((c) => c.id)).size).toBe(3);
    const read = await call("GET", `/v1/tenants/${tenantId}/stations/${res.body.id}`, { key });
    expect(read.body).toEqual(res.body);
  });

  it("enforces every name rule", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const location = await aLocation(tenantId, key);
    const bad = [
      "",
      "-starts-with-hyphen",
      "_under",
      "has space",
      "dot.name",
      "x".repeat(37),
      "p12-reserved",
      "P7-reserved",
      "ümlaut",
    ];
    for (const name of bad) {
      const res = await call("POST", `/v1/tenants/${tenantId}/stations`, {
        key,
        body: { name, location_id: location.id, connector_count: 1 },
        idempotencyKey: idem(),
      });
      expect(res.status, name).toBe(422);
      expect(res.body.error.details.fields[0].field).toBe("name");
    }
    for (const name of ["a", "9x", "A_b-C", "x".repeat(36), "p-not-reserved", "p12x-fine"]) {
      const res = await call("POST", `/v1/tenants/${tenantId}/stations`, {
        key,
        body: { name: `${name}`.slice(0, 36), location_id: location.id, connector_count: 1 },
        idempotencyKey: idem(),
      });
      // Names are global: another test file may hold a short name; only the rules matter here.
      expect([201, 409], name).toContain(res.status);
    }
  });

  it("refuses a name already registered, in any tenant and any case: station_name_taken", async () => {
    const a = await aTenantWithKey();
    const b = await aTenantWithKey();
    const station = await aStation(a.tenantId, a.key);
    const location = await aLocation(b.tenantId, b.key);
    const res = await call("POST", `/v1/tenants/${b.tenantId}/stations`, {
      key: b.key,
      body: { name: station.name.toLowerCase(), location_id: location.id, connector_count: 1 },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("station_name_taken");
  });

  it("refuses a location of another tenant, and a duplicate external_reference", async () => {
    const a = await aTenantWithKey();
    const b = await aTenantWithKey();
    const foreign = await aLocation(b.tenantId, b.key);
    const res = await call("POST", `/v1/tenants/${a.tenantId}/stations`, {
      key: a.key,
      body: { name: uniqueStationName(), location_id: foreign.id, connector_count: 1 },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("location_not_found");
    await aStation(a.tenantId, a.key, { external_reference: "ref-1" });
    const dup = await aStation(a.tenantId, a.key, { external_reference: "ref-1" }).catch(
      (e: Error) => e.message,
    );
    expect(dup).toContain("external_reference_taken");
  });

  it("lists with pagination and the name and external_reference filters", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const location = await aLocation(tenantId, key);
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        await aStation(tenantId, key, {
          location_id: location.id,
          external_reference: `ext-${i}`,
          name: uniqueStationName(i % 2 ? "ODD" : "EVEN"),
        }),
      );
    }
    const page1 = await call("GET", `/v1/tenants/${tenantId}/stations?limit=2`, { key });
    expect(page1.body.data.map((s: { id: number }) => s.id)).toEqual([
      created[0]!.id,
      created[1]!.id,
    ]);
    expect(page1.body.next_cursor).toBe(created[1]!.id);
    const page3 = await call(
      "GET",
      `/v1/tenants/${tenantId}/stations?limit=2&after=${created[3]!.id}`,
      { key },
    );
    expect(page3.body.data.map((s: { id: number }) => s.id)).toEqual([created[4]!.id]);
    expect(page3.body.next_cursor).toBeNull();
    const odd = await call("GET", `/v1/tenants/${tenantId}/stations?name=odd`, { key });
    expect(odd.body.data.map((s: { id: number }) => s.id)).toEqual([
      created[1]!.id,
      created[3]!.id,
    ]);
    const byRef = await call("GET", `/v1/tenants/${tenantId}/stations?external_reference=ext-2`, {
      key,
    });
    expect(byRef.body.data.map((s: { id: number }) => s.id)).toEqual([created[2]!.id]);
    const tooLong = await call("GET", `/v1/tenants/${tenantId}/stations?name=${"x".repeat(201)}`, {
      key,
    });
    expect(tooLong.status).toBe(422);
  });

  it("moves a station only to a location of the same tenant, as a completed operation", async () => {
    const a = await aTenantWithKey();
    const b = await aTenantWithKey();
    const station = await aStation(a.tenantId, a.key);
    const target = await aLocation(a.tenantId, a.key, { name: "Second site" });
    const res = await call("PATCH", `/v1/tenants/${a.tenantId}/stations/${station.id}`, {
      key: a.key,
      body: { location_id: target.id },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: "succeeded",
      action: "move",
      station_id: station.id,
      result: { location_id: target.id },
    });
    expect(
      (await call("GET", `/v1/tenants/${a.tenantId}/stations/${station.id}`, { key: a.key })).body
        .location_id,
    ).toBe(target.id);
    const foreign = await aLocation(b.tenantId, b.key);
    const refused = await call("PATCH", `/v1/tenants/${a.tenantId}/stations/${station.id}`, {
      key: a.key,
      body: { location_id: foreign.id },
      idempotencyKey: idem(),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("location_not_found");
  });

  it("deletes a station without history; refuses one with an active transaction or history", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const free = await aStation(tenantId, key);
    const del = await call("DELETE", `/v1/tenants/${tenantId}/stations/${free.id}`, {
      key,
      idempotencyKey: idem(),
    });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: free.id, deleted: true });
    expect(await db().connector.count({ where: { stationId: free.id } })).toBe(0);
    expect((await call("GET", `/v1/tenants/${tenantId}/stations/${free.id}`, { key })).status).toBe(
      404,
    );

    const busy = await aStation(tenantId, key);
    const tx = await db().transaction.create({
      data: {
        tenantId,
        stationId: busy.id,
        connectorId: busy.connectors[0]!.id,
        reference: "T1",
        startedAt: new Date(),
      },
    });
    const active = await call("DELETE", `/v1/tenants/${tenantId}/stations/${busy.id}`, {
      key,
      idempotencyKey: idem(),
    });
    expect(active.status).toBe(409);
    expect(active.body.error.code).toBe("transaction_active");
    await db().transaction.update({ where: { id: tx.id }, data: { endedAt: new Date() } });
    const history = await call("DELETE", `/v1/tenants/${tenantId}/stations/${busy.id}`, {
      key,
      idempotencyKey: idem(),
    });
    expect(history.status).toBe(409);
    expect(history.body.error.code).toBe("station_has_history");
  });

  it("creates one station under 20 concurrent identical registrations", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const location = await aLocation(tenantId, key);
    const k = idem();
    const body = { name: uniqueStationName("RACE"), location_id: location.id, connector_count: 2 };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        call("POST", `/v1/tenants/${tenantId}/stations`, { key, body, idempotencyKey: k }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(await db().station.count({ where: { tenantId } })).toBe(1);
  });
});
