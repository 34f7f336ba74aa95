import http from "node:http";
import { expect, test } from "@playwright/test";
import { loopback } from "./fixtures/product";

// Requests from this process reach the product at loopback (fixtures/product.ts).
const base = () => loopback(process.env.E2E_BASE_URL!);
const tenant = () => process.env.E2E_TENANT_ID!;
const auth = () => ({ authorization: `Bearer ${process.env.E2E_API_KEY!}` });

/** A request whose path goes on the wire exactly as given (fetch would normalize it). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; type: string; text: string }> {
  const url = new URL(base());
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path, headers, timeout: 10_000, agent: false },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"] ?? "", text }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer`)));
    req.on("error", reject);
    req.end(body);
  });
}

test.describe("the /v1 API of the production build", () => {
  test("a first call: discovery, health and access with a bootstrapped key", async ({
    request,
  }) => {
    const discovery = await request.get(`${base()}/v1`);
    expect(discovery.status()).toBe(200);
    expect(discovery.headers()["service-version"]).toBe("2026-10-15");
    const health = await request.get(`${base()}/v1/health`);
    expect((await health.json()).database.ok).toBe(true);
    const access = await request.get(`${base()}/v1/access`, { headers: auth() });
    expect(access.status()).toBe(200);
    expect((await access.json()).tenants[0].id).toBe(Number(tenant()));
  });

  test("register a location and a station, read them back", async ({ request }) => {
    const location = await request.post(`${base()}/v1/tenants/${tenant()}/locations`, {
      headers: { ...auth(), "idempotency-key": `e2e-loc-${Date.now()}` },
      data: {
        name: "E2E depot",
        address: { street: "1 Test Way", city: "Austin", country: "US" },
        coordinates: { latitude: 30.2672, longitude: -97.7431 },
        time_zone: "America/Chicago",
      },
    });
    expect(location.status()).toBe(201);
    const locationId = (await location.json()).id;
    const name = `E2E-${Date.now()}`;
    const station = await request.post(`${base()}/v1/tenants/${tenant()}/stations`, {
      headers: { ...auth(), "idempotency-key": `e2e-st-${Date.now()}` },
      data: { name, location_id: locationId, connector_count: 2 },
    });
    expect(station.status()).toBe(201);
    const body = await station.json();
    expect(body.connection_url).toBe(`${process.env.E2E_OCPP_URL}/ocpp/${name}`);
    const read = await request.get(`${base()}/v1/tenants/${tenant()}/stations/${body.id}`, {
      headers: auth(),
    });
    expect(await read.json()).toEqual(body);
  });

  test("errors keep their shape through Next.js: 404, 405, 401, 400", async ({ request }) => {
    const unknown = await request.get(`${base()}/v1/no/such/route`);
    expect(unknown.status()).toBe(404);
    expect((await unknown.json()).error.code).toBe("route_not_found");
    const method = await request.put(`${base()}/v1/health`);
    expect(method.status()).toBe(405);
    expect((await method.json()).error.code).toBe("method_not_allowed");
    const noKey = await request.get(`${base()}/v1/tenants/${tenant()}/stations`);
    expect(noKey.status()).toBe(401);
    expect((await noKey.json()).error.code).toBe("unauthenticated");
    const bad = await request.post(`${base()}/v1/tenants/${tenant()}/locations`, {
      headers: {
        ...auth(),
        "idempotency-key": "e2e-bad-json-1",
        "content-type": "application/json",
      },
      data: Buffer.from("{oops"),
    });
    expect(bad.status()).toBe(400);
    expect((await bad.json()).error.code).toBe("invalid_json");
  });

  test("malformed paths and input through Next.js: the error shape, never a 5xx", async () => {
    const errorCode = (res: { status: number; type: string; text: string }) => {
      expect(res.status, res.text).toBeLessThan(500);
      expect(res.type).toMatch(/^application\/json/);
      const body = JSON.parse(res.text);
      expect(body.error).toEqual({
        code: expect.any(String),
        message: expect.any(String),
        details: expect.any(Object),
      });
      return body.error.code as string;
    };
    // Not percent-encoded UTF-8: Next.js cannot decode these segments (it used to answer 500).
    for (const path of [
      "/v1/tenants/%FF/stations",
      `/v1/tenants/${tenant()}/stations/%zz`,
      "/v1/%E0%A4%A",
      "/v1/%",
      "/v1/tenants/%C0%AF/stations",
      `/v1/tenants/${tenant()}/webhooks/%ED%A0%80/deliveries`,
    ]) {
      for (const method of ["GET", "POST", "DELETE"]) {
        const res = await raw(method, path, auth());
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(errorCode(res)).toBe("route_not_found");
      }
    }
    // Percent-encoded and decodable: on to the router, body included.
    const nulId = await raw("GET", `/v1/tenants/${tenant()}/webhooks/%00`, auth());
    expect([nulId.status, errorCode(nulId)]).toEqual([422, "validation_failed"]);
    const encoded = await raw(
      "POST",
      `/v1/tenants/${tenant()}/stations/%31/commands`,
      { ...auth(), "content-type": "application/json", "idempotency-key": "e2e-encoded-path-1" },
      '{"action":"reset","mode":"so\\u0000ft"}',
    );
    expect([encoded.status, errorCode(encoded)]).toEqual([422, "validation_failed"]);
    expect(JSON.parse(encoded.text).error.details.fields[0].field).toBe("mode");
    const deep = await raw(
      "POST",
      `/v1/tenants/${tenant()}/tariffs`,
      { ...auth(), "content-type": "application/json", "idempotency-key": "e2e-deep-json-1" },
      `{"x":${"[".repeat(6000)}${"]".repeat(6000)}}`,
    );
    expect([deep.status, errorCode(deep)]).toEqual([400, "invalid_json"]);
    // Refused from its declared length, without waiting for a body that never comes.
    const declaredTooLarge = await raw("POST", `/v1/tenants/${tenant()}/locations`, {
      ...auth(),
      "content-type": "application/json",
      "content-length": "99999999",
      "idempotency-key": "e2e-too-large-1",
    });
    expect([declaredTooLarge.status, errorCode(declaredTooLarge)]).toEqual([
      413,
      "payload_too_large",
    ]);
    // Methods and targets Next.js cannot route, and what Node's parser refuses, get the same shape.
    for (const method of ["TRACE", "PROPFIND", "MKCOL"]) {
      const res = await raw(method, "/v1/health", auth());
      expect([res.status, errorCode(res)], method).toEqual([405, "method_not_allowed"]);
    }
    const star = await raw("OPTIONS", "*");
    expect([star.status, errorCode(star)]).toEqual([400, "malformed_request"]);
    const bigHeaders = await raw("GET", "/v1/health", { "x-filler": "a".repeat(20_000) });
    expect([bigHeaders.status, errorCode(bigHeaders)]).toEqual([431, "headers_too_large"]);
  });

  test("the OpenAPI document is served", async ({ request }) => {
    const doc = await request.get(`${base()}/v1/openapi.json`);
    const body = await doc.json();
    expect(body.openapi).toBe("3.1.0");
    expect(body.paths["/v1/tenants/{tenant_id}/stations/{station_id}"].get["x-scopes"]).toEqual([
      "stations:read",
    ]);
  });
});
