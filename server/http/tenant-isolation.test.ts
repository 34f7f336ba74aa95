import { describe, expect, it } from "vitest";
import { call, idem } from "../../testing/api";
import {
  aLocation,
  aLocationBody,
  aStation,
  aTenantWithKey,
  uniqueStationName,
} from "../../testing/builders";

/**
 * A key of tenant A can neither read, list, change nor learn of tenant B's resources, on every
 * route. Refusals are identical whether the thing exists or not.
 */
describe("tenant isolation", () => {
  it("refuses every tenant route of another tenant the same way as a tenant that does not exist", async () => {
    const a = await aTenantWithKey();
    const b = await aTenantWithKey();
    const bLocation = await aLocation(b.tenantId, b.key);
    const bStation = await aStation(b.tenantId, b.key, { location_id: bLocation.id });
    const missingTenant = 2_000_000_000;
    const requests: [string, (t: number) => string, unknown?][] = [
      ["GET", (t) => `/v1/tenants/${t}/locations`],
      ["POST", (t) => `/v1/tenants/${t}/locations`, aLocationBody()],
      ["GET", (t) => `/v1/tenants/${t}/locations/${bLocation.id}`],
      ["GET", (t) => `/v1/tenants/${t}/stations`],
      [
        "POST",
        (t) => `/v1/tenants/${t}/stations`,
        { name: uniqueStationName(), location_id: bLocation.id, connector_count: 1 },
      ],
      ["GET", (t) => `/v1/tenants/${t}/stations/${bStation.id}`],
      ["PATCH", (t) => `/v1/tenants/${t}/stations/${bStation.id}`, { location_id: bLocation.id }],
      ["DELETE", (t) => `/v1/tenants/${t}/stations/${bStation.id}`],
    ];
    for (const [method, path, body] of requests) {
      const real = await call(method, path(b.tenantId), {
        key: a.key,
        body,
        idempotencyKey: idem(),
      });
      const ghost = await call(method, path(missingTenant), {
        key: a.key,
        body,
        idempotencyKey: idem(),
      });
      expect(real.status, `${method} ${path(b.tenantId)}`).toBe(404);
      expect(real.body).toEqual(ghost.body);
    }
    // B's things are untouched.
    const still = await call("GET", `/v1/tenants/${b.tenantId}/stations/${bStation.id}`, {
      key: b.key,
    });
    expect(still.status).toBe(200);
    expect(still.body.location_id).toBe(bLocation.id);
  });

  it("hides another tenant's IDs behind the key's own tenant path", async () => {
    const a = await aTenantWithKey();
    const b = await aTenantWithKey();
    const bLocation = await aLocation(b.tenantId, b.key);
    const bStation = await aStation(b.tenantId, b.key, {
      location_id: bLocation.id,
      external_reference: "secret-ref",
    });
    const aLoc = await aLocation(a.tenantId, a.key);
    const reads = [
      await call("GET", `/v1/tenants/${a.tenantId}/stations/${bStation.id}`, { key: a.key }),
      await call("GET", `/v1/tenants/${a.tenantId}/locations/${bLocation.id}`, { key: a.key }),
      await call("PATCH", `/v1/tenants/${a.tenantId}/stations/${bStation.id}`, {
        key: a.key,
        body: { location_id: aLoc.id },
        idempotencyKey: idem(),
      }),
      await call("DELETE", `/v1/tenants/${a.tenantId}/stations/${bStation.id}`, {
        key: a.key,
        idempotencyKey: idem(),
      }),
    ];
    const ghost = await call("GET", `/v1/tenants/${a.tenantId}/stations/2000000000`, {
      key: a.key,
    });
    for (const res of reads) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    expect(reads[0]!.body).toEqual(ghost.body);
    const list = await call(
      "GET",
      `/v1/tenants/${a.tenantId}/stations?external_reference=secret-ref`,
      { key: a.key },
    );
    expect(list.body.data).toEqual([]);
    const locs = await call("GET", `/v1/tenants/${a.tenantId}/locations`, { key: a.key });
    expect(locs.body.data.map((l: { id: number }) => l.id)).toEqual([aLoc.id]);
    // a station may not be placed at another tenant's location
    const placed = await call("POST", `/v1/tenants/${a.tenantId}/stations`, {
      key: a.key,
      body: { name: uniqueStationName(), location_id: bLocation.id, connector_count: 1 },
      idempotencyKey: idem(),
    });
    expect(placed.status).toBe(422);
  });
});
