import { describe, expect, it } from "vitest";
import { keyCache } from "../access/key-cache";
import { db, requireDatabaseUrl } from "../db";
import { revokeApiKey } from "../keys/revoke-api-key";
import { setApiKeyRateLimit } from "../keys/set-rate-limit";
import { call, idem } from "../../testing/api";
import { aLocationBody, aTenantWithKey, anotherKey } from "../../testing/builders";
import { MAX_BODY_BYTES } from "./body";

const errorShape = (body: any, code: string) => {
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Object) },
  });
};

describe("error shape on every non-2xx answer", () => {
  it("unknown route: 404 route_not_found", async () => {
    const res = await call("GET", "/v1/nothing/here");
    expect(res.status).toBe(404);
    errorShape(res.body, "route_not_found");
    expect(res.headers.get("service-version")).toBe("2026-10-15");
  });

  it("wrong method: 405 with Allow", async () => {
    const res = await call("DELETE", "/v1/health");
    expect(res.status).toBe(405);
    errorShape(res.body, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET");
  });

  it("missing credentials: 401; malformed and unknown keys: 401", async () => {
    const { tenantId } = await aTenantWithKey();
    const none = await call("GET", `/v1/tenants/${tenantId}/stations`);
    expect(none.status).toBe(401);
    errorShape(none.body, "unauthenticated");
    const basic = await call("GET", `/v1/tenants/${tenantId}/stations`, {
      headers: { authorization: "Basic abc" },
    });
    expect(basic.status).toBe(401);
    const wrong = await call("GET", `/v1/tenants/${tenantId}/stations`, {
      key: "cpk_live_notarealkey",
    });
    expect(wrong.status).toBe(401);
    errorShape(wrong.body, "unauthenticated");
  });

  it("missing scope: 403 insufficient_scope naming the scope", async () => {
    const { tenantId } = await aTenantWithKey();
    const key = await anotherKey(tenantId, ["billing:read"]);
    const res = await call("GET", `/v1/tenants/${tenantId}/stations`, { key });
    expect(res.status).toBe(403);
    errorShape(res.body, "insufficient_scope");
    expect(res.body.error.details.missing_scopes).toEqual(["stations:read"]);
  });

  it("malformed JSON: 400 invalid_json; wrong content type: 415", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const bad = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      raw: "{not json",
      headers: { "content-type": "application/json" },
      idempotencyKey: idem(),
    });
    expect(bad.status).toBe(400);
    errorShape(bad.body, "invalid_json");
    const form = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      raw: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      idempotencyKey: idem(),
    });
    expect(form.status).toBe(415);
    errorShape(form.body, "unsupported_media_type");
  });

  it("body over the limit: 413", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const res = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: aLocationBody({ name: "x".repeat(MAX_BODY_BYTES) }),
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(413);
    errorShape(res.body, "payload_too_large");
  });

  it("validation failure: 422 naming every failing field", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const res = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: aLocationBody({
        time_zone: "Mars/Olympus",
        coordinates: { latitude: 100, longitude: 0 },
        color: "red",
      }),
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(422);
    errorShape(res.body, "validation_failed");
    const fields = res.body.error.details.fields.map((f: { field: string }) => f.field);
    expect(fields).toEqual(expect.arrayContaining(["time_zone", "coordinates.latitude", "color"]));
  });

  it("out-of-range pagination: 422", async () => {
    const { tenantId, key } = await aTenantWithKey();
    for (const q of ["limit=0", "limit=101", "after=-1", "after=abc", "limit=2.5"]) {
      const res = await call("GET", `/v1/tenants/${tenantId}/locations?${q}`, { key });
      expect(res.status, q).toBe(422);
      errorShape(res.body, "validation_failed");
    }
  });

  it("non-numeric and out-of-range path IDs: 422, never 500", async () => {
    const { tenantId, key } = await aTenantWithKey();
    for (const id of ["abc", "0", "99999999999", "%E0%A4%A"]) {
      const res = await call("GET", `/v1/tenants/${tenantId}/stations/${id}`, { key });
      expect([404, 422], id).toContain(res.status);
      expect(res.body.error).toBeDefined();
    }
  });

  it("a revoked key is refused on its next request", async () => {
    const { tenantId, key, keyId } = await aTenantWithKey();
    expect((await call("GET", `/v1/tenants/${tenantId}/locations`, { key })).status).toBe(200);
    await revokeApiKey({ keyId });
    const res = await call("GET", `/v1/tenants/${tenantId}/locations`, { key });
    expect(res.status).toBe(401);
    errorShape(res.body, "unauthenticated");
  });
});

describe("versioning", () => {
  it("answers with the key's pinned version, or the requested one", async () => {
    const { tenantId, key, keyId } = await aTenantWithKey();
    await db().apiKey.update({ where: { id: keyId }, data: { apiVersion: "2026-10-14" } });
    const pinned = await call("GET", `/v1/tenants/${tenantId}/locations`, { key });
    expect(pinned.headers.get("service-version")).toBe("2026-10-14");
    const asked = await call("GET", `/v1/tenants/${tenantId}/locations`, {
      key,
      headers: { "service-version": "2026-10-15" },
    });
    expect(asked.headers.get("service-version")).toBe("2026-10-15");
  });

  it("an unsupported version: 400 invalid_api_version with supported_versions", async () => {
    const res = await call("GET", "/v1/health", { headers: { "service-version": "2025-01-01" } });
    expect(res.status).toBe(400);
    errorShape(res.body, "invalid_api_version");
    expect(res.body.error.details.supported_versions).toEqual(["2026-10-15", "2026-10-14"]);
    expect(res.headers.get("service-version")).toBe("2026-10-15");
  });

  it("new keys pin the latest version", async () => {
    const { key } = await aTenantWithKey();
    const res = await call("GET", "/v1/access", { key });
    expect(res.body.principal.api_version).toBe("2026-10-15");
  });
});

describe("rate limit", () => {
  it("answers 429 with Retry-After past the key's limit, and counts per key", async () => {
    const { tenantId, key, keyId } = await aTenantWithKey();
    await setApiKeyRateLimit({ keyId, perMinute: 3, changedBy: null });
    const other = await anotherKey(tenantId, ["stations:read"]);
    // the four calls in one window (a minute's last seconds are waited out)
    const second = new Date().getUTCSeconds();
    if (second > 54) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const responses = [];
    for (let i = 0; i < 4; i++)
      responses.push(await call("GET", `/v1/tenants/${tenantId}/locations`, { key }));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(responses.map((r) => r.headers.get("ratelimit-remaining"))).toEqual([
      "2",
      "1",
      "0",
      "0",
    ]);
    const last = responses[3]!;
    errorShape(last.body, "rate_limited");
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await call("GET", `/v1/tenants/${tenantId}/locations`, { key: other })).status).toBe(
      200,
    );
  });

  it("refuses exactly past the limit under concurrency with the key cached, and writes every attempt", async () => {
    const { tenantId, key, keyId } = await aTenantWithKey();
    await setApiKeyRateLimit({ keyId, perMinute: 5, changedBy: null });
    // the process's key cache listening, so the requests after the first are counted in memory
    expect(await keyCache(requireDatabaseUrl).ready()).toBe(true);
    const second = new Date().getUTCSeconds();
    if (second > 54) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const path = `/v1/tenants/${tenantId}/locations`;
    const first = await call("GET", path, { key });
    expect(first.headers.get("ratelimit-remaining")).toBe("4");
    const rest = await Promise.all(Array.from({ length: 11 }, () => call("GET", path, { key })));
    const ok = rest.filter((r) => r.status === 200);
    const refused = rest.filter((r) => r.status === 429);
    expect(ok).toHaveLength(4);
    expect(refused).toHaveLength(7);
    expect(ok.map((r) => r.headers.get("ratelimit-remaining")).sort()).toEqual([
      "0",
      "1",
      "2",
      "3",
    ]);
    for (const r of refused) {
      errorShape(r.body, "rate_limited");
      expect(r.headers.get("ratelimit-limit")).toBe("5");
      expect(r.headers.get("ratelimit-remaining")).toBe("0");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    // written by the process's flush timer (every 100 ms; a loaded machine may take longer)
    let count = 0;
    for (let waited = 0; count < 12 && waited < 5_000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
      count = (await db().rateLimitWindow.findUniqueOrThrow({ where: { apiKeyId: keyId } })).count;
    }
    expect(count).toBe(12);
  });

  it("reports the documented headers on every authenticated answer", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const res = await call("GET", `/v1/tenants/${tenantId}/locations`, { key });
    expect(res.headers.get("ratelimit-limit")).toBe("180");
    expect(Number(res.headers.get("ratelimit-remaining"))).toBeLessThan(180);
    expect(Number(res.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
  });
});

describe("public routes", () => {
  it("GET /v1, /v1/health, /v1/config, /v1/capabilities answer without credentials", async () => {
    for (const path of ["/v1", "/v1/health", "/v1/config", "/v1/capabilities"]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(200);
    }
    expect((await call("GET", "/v1/health")).body.database.ok).toBe(true);
  });

  it("/v1/access reports the key's tenant and scopes", async () => {
    const { tenantId, teamId, key } = await aTenantWithKey({
      scopes: ["stations:read", "webhooks:read"],
    });
    const res = await call("GET", "/v1/access", { key });
    expect(res.status).toBe(200);
    expect(res.body.principal.type).toBe("api_key");
    expect(res.body.tenants).toEqual([
      { id: tenantId, team_id: teamId, roles: [], scopes: ["stations:read", "webhooks:read"] },
    ]);
  });

  it("the OpenAPI document lists every route with its scopes and error codes", async () => {
    const res = await call("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info.version).toBe("2026-10-15");
    const caps = await call("GET", "/v1/capabilities");
    for (const { method, path } of caps.body.routes as { method: string; path: string }[]) {
      const op = res.body.paths[path]?.[method.toLowerCase()];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(Array.isArray(op["x-error-codes"])).toBe(true);
    }
    const register = res.body.paths["/v1/tenants/{tenant_id}/stations"].post;
    expect(register["x-scopes"]).toEqual(["stations:write"]);
    expect(register["x-error-codes"]).toEqual(
      expect.arrayContaining(["station_name_taken", "idempotency_key_reused"]),
    );
    expect(register.requestBody.content["application/json"].schema.properties.name).toBeDefined();
  });
});
