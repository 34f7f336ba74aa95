import { describe, expect, it } from "vitest";
import { handleV1 } from "../http/routes";
import { call, idem } from "../../testing/api";
import { aTariff } from "../../testing/bills";
import { aStation, aTenantWithKey, anotherKey } from "../../testing/builders";

async function setup() {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
  const path = (evse = 1) =>
    `/v1/tenants/${t.tenantId}/stations/${station.id}/evses/${evse}/display`;
  const put = (body: unknown, key = t.key, evse = 1) =>
    call("PUT", path(evse), { key, body, idempotencyKey: idem() });
  return { ...t, station, path, put };
}

describe("display routes", () => {
  it("refuses an http URL, a URL over 500 characters and another tenant's tariff in the error shape", async () => {
    const s = await setup();
    const http = await s.put({ url: "http://pay.example.com/x" });
    expect(http.status).toBe(422);
    expect(http.body.error).toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "url", location: "body" }] },
    });
    const base = "https://pay.example.com/";
    const long = await s.put({ url: base + "a".repeat(501 - base.length) });
    expect(long.status).toBe(422);
    expect(long.body.error.details.fields[0]).toMatchObject({
      field: "url",
      message: expect.stringContaining("500"),
    });
    const exactly500 = await s.put({ url: base + "a".repeat(500 - base.length) });
    expect(exactly500.status).toBe(200);

    const other = await aTenantWithKey();
    const foreign = await aTariff(other.tenantId, other.key, { rate_minor_per_kwh: 30 });
    const refused = await s.put({ url: "https://pay.example.com/t", tariff_id: foreign.id });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "tariff_id", location: "body" }] },
    });
    const own = await aTariff(s.tenantId, s.key, { rate_minor_per_kwh: 30 });
    expect((await s.put({ url: "https://pay.example.com/t", tariff_id: own.id })).status).toBe(200);
    const unknownEvse = await s.put({ url: "https://pay.example.com/t" }, s.key, 9);
    expect(unknownEvse.status).toBe(404);
  });

  it("needs stations:write to set or delete, stations:read to read; another tenant's station is not found", async () => {
    const s = await setup();
    const reader = await anotherKey(s.tenantId, ["stations:read"]);
    const refused = await s.put({ url: "https://pay.example.com/r" }, reader);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: "insufficient_scope",
      details: { missing_scopes: ["stations:write"] },
    });
    expect((await call("GET", s.path(), { key: reader })).status).toBe(404); // none set yet
    const writer = await anotherKey(s.tenantId, ["stations:write"]);
    expect((await s.put({ url: "https://pay.example.com/r" }, writer)).status).toBe(200);
    const read = await call("GET", s.path(), { key: reader });
    expect(read.body).toMatchObject({ url: "https://pay.example.com/r" });
    expect((await call("DELETE", s.path(), { key: reader })).status).toBe(403);
    expect((await call("DELETE", s.path(), { key: writer })).body.deleted).toBe(true);
    expect((await call("DELETE", s.path(), { key: writer })).status).toBe(404);

    const other = await aTenantWithKey();
    const foreign = await call(
      "PUT",
      `/v1/tenants/${other.tenantId}/stations/${s.station.id}/evses/1/display`,
      { key: other.key, body: { url: "https://pay.example.com/x" } },
    );
    expect(foreign.status).toBe(404);
  });

  it("answers an unknown or malformed image in the error shape, and the document lists the paths", async () => {
    const missing = await handleV1(
      new Request(`http://localhost:3000/v1/display-images/${"0".repeat(64)}.png`),
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "not_found" } });
    const malformed = await call("GET", "/v1/display-images/nothex.png");
    expect(malformed.status).toBe(422);
    expect(malformed.body.error.code).toBe("validation_failed");

    const doc = (await call("GET", "/v1/openapi.json")).body;
    const path = "/v1/tenants/{tenant_id}/stations/{station_id}/evses/{evse_number}/display";
    expect(Object.keys(doc.paths[path]).sort()).toEqual(["delete", "get", "put"]);
    expect(doc.paths[path].put["x-scopes"]).toEqual(["stations:write"]);
    expect(doc.paths[path].put["x-error-codes"]).toContain("displays_disabled");
    const image = doc.paths["/v1/display-images/{sha256}.png"].get;
    expect(image.security).toEqual([]);
    expect(Object.keys(image.responses["200"].content)).toEqual(["image/png"]);
  });
});
