import { describe, expect, it } from "vitest";
import { call, idem } from "../../testing/api";
import { aLocation, aStation, aTenantWithKey, anotherKey } from "../../testing/builders";
import { buildOpenApiDocument } from "../http/openapi-document";
import { allRoutes } from "../http/routes";

const path = (tenantId: number, id: number) => `/v1/tenants/${tenantId}/locations/${id}`;

describe("editing a location (PATCH /v1/tenants/{tenant_id}/locations/{location_id})", () => {
  it("replaces the fields given and keeps the others; a London site keeps Europe/London", async () => {
    const t = await aTenantWithKey();
    const made = await aLocation(t.tenantId, t.key, { external_reference: "site-1" });
    const res = await call("PATCH", path(t.tenantId, made.id), {
      key: t.key,
      idempotencyKey: idem(),
      body: {
        name: "King's Cross",
        address: { street: "1 Pancras Sq", city: "London", postal_code: "N1C 4AG", country: "GB" },
        coordinates: { latitude: 51.5347, longitude: -0.1246 },
        time_zone: "Europe/London",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: made.id,
      name: "King's Cross",
      address: { country: "GB", city: "London" },
      coordinates: { latitude: 51.5347, longitude: -0.1246 },
      time_zone: "Europe/London",
      external_reference: "site-1",
    });
    const read = await call("GET", path(t.tenantId, made.id), { key: t.key });
    expect(read.body.time_zone).toBe("Europe/London");
    expect(read.body.name).toBe("King's Cross");

    const cleared = await call("PATCH", path(t.tenantId, made.id), {
      key: t.key,
      idempotencyKey: idem(),
      body: { external_reference: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.external_reference).toBeNull();
    expect(cleared.body.name).toBe("King's Cross");
  });

  it("refuses bad input with 422 and the error shape, naming each field; nothing changes", async () => {
    const t = await aTenantWithKey();
    const made = await aLocation(t.tenantId, t.key);
    const bad = await call("PATCH", path(t.tenantId, made.id), {
      key: t.key,
      idempotencyKey: idem(),
      body: {
        time_zone: "Mars/Olympus",
        address: { street: "1 Pancras Sq", city: "London", country: "United Kingdom" },
        coordinates: { latitude: 91, longitude: 0 },
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("validation_failed");
    expect(typeof bad.body.error.message).toBe("string");
    const fields = (bad.body.error.details.fields as { field: string }[]).map((f) => f.field);
    expect(fields).toEqual(
      expect.arrayContaining(["time_zone", "address.country", "coordinates.latitude"]),
    );
    const empty = await call("PATCH", path(t.tenantId, made.id), {
      key: t.key,
      idempotencyKey: idem(),
      body: {},
    });
    expect(empty.status).toBe(422);
    const unknown = await call("PATCH", path(t.tenantId, made.id), {
      key: t.key,
      idempotencyKey: idem(),
      body: { colour: "blue" },
    });
    expect(unknown.status).toBe(422);
    expect((await call("GET", path(t.tenantId, made.id), { key: t.key })).body.time_zone).toBe(
      "America/New_York",
    );
  });

  it("refuses another location's external_reference with 409 external_reference_taken", async () => {
    const t = await aTenantWithKey();
    await aLocation(t.tenantId, t.key, { external_reference: "taken" });
    const mine = await aLocation(t.tenantId, t.key);
    const res = await call("PATCH", path(t.tenantId, mine.id), {
      key: t.key,
      idempotencyKey: idem(),
      body: { external_reference: "taken" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("external_reference_taken");
  });

  it("needs stations:write and an Idempotency-Key; another tenant's location is 404", async () => {
    const t = await aTenantWithKey();
    const other = await aTenantWithKey();
    const made = await aLocation(t.tenantId, t.key);
    const reader = await anotherKey(t.tenantId, ["stations:read"]);
    const denied = await call("PATCH", path(t.tenantId, made.id), {
      key: reader,
      idempotencyKey: idem(),
      body: { name: "x" },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("insufficient_scope");
    const noKey = await call("PATCH", path(t.tenantId, made.id), {
      key: t.key,
      body: { name: "x" },
    });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.code).toBe("idempotency_key_missing");
    const elsewhere = await call("PATCH", path(other.tenantId, made.id), {
      key: other.key,
      idempotencyKey: idem(),
      body: { name: "Hijacked" },
    });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe("not_found");
    expect((await call("GET", path(t.tenantId, made.id), { key: t.key })).body.name).toBe("Depot");
  });
});

describe("deleting a location (DELETE /v1/tenants/{tenant_id}/locations/{location_id})", () => {
  it("is refused with 409 location_has_stations while a station stands there; then deletes", async () => {
    const t = await aTenantWithKey();
    const made = await aLocation(t.tenantId, t.key);
    const station = await aStation(t.tenantId, t.key, { location_id: made.id });
    const refused = await call("DELETE", path(t.tenantId, made.id), {
      key: t.key,
      idempotencyKey: idem(),
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "location_has_stations",
      details: { station_count: 1 },
    });
    expect(refused.body.error.message).toMatch(/move or delete it first/);
    expect((await call("GET", path(t.tenantId, made.id), { key: t.key })).status).toBe(200);

    const gone = await call("DELETE", `/v1/tenants/${t.tenantId}/stations/${station.id}`, {
      key: t.key,
      idempotencyKey: idem(),
    });
    expect(gone.status).toBe(200);
    const deleted = await call("DELETE", path(t.tenantId, made.id), {
      key: t.key,
      idempotencyKey: idem(),
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: made.id, deleted: true });
    expect((await call("GET", path(t.tenantId, made.id), { key: t.key })).status).toBe(404);
  });

  it("needs stations:write; another tenant's location is 404 and stays", async () => {
    const t = await aTenantWithKey();
    const other = await aTenantWithKey();
    const made = await aLocation(t.tenantId, t.key);
    const reader = await anotherKey(t.tenantId, ["stations:read"]);
    const denied = await call("DELETE", path(t.tenantId, made.id), {
      key: reader,
      idempotencyKey: idem(),
    });
    expect(denied.status).toBe(403);
    const elsewhere = await call("DELETE", path(other.tenantId, made.id), {
      key: other.key,
      idempotencyKey: idem(),
    });
    expect(elsewhere.status).toBe(404);
    expect((await call("GET", path(t.tenantId, made.id), { key: t.key })).status).toBe(200);
  });
});

describe("a location's stations", () => {
  it("lists only the stations at one location (location_id filter)", async () => {
    const t = await aTenantWithKey();
    const a = await aLocation(t.tenantId, t.key);
    const b = await aLocation(t.tenantId, t.key);
    const atA = await aStation(t.tenantId, t.key, { location_id: a.id });
    await aStation(t.tenantId, t.key, { location_id: b.id });
    const res = await call("GET", `/v1/tenants/${t.tenantId}/stations?location_id=${a.id}`, {
      key: t.key,
    });
    expect(res.status).toBe(200);
    expect((res.body.data as { id: number }[]).map((s) => s.id)).toEqual([atA.id]);
  });

  it("the OpenAPI document shows the edit and delete routes", () => {
    const doc = buildOpenApiDocument(allRoutes, "http://localhost:3000") as unknown as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const item = doc.paths["/v1/tenants/{tenant_id}/locations/{location_id}"]!;
    expect(item.patch?.operationId).toBe("updateLocation");
    expect(item.delete?.operationId).toBe("deleteLocation");
  });
});
