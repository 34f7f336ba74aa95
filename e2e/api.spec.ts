import { expect, test } from "@playwright/test";
import { loopback } from "./fixtures/product";

// Requests from this process reach the product at loopback (fixtures/product.ts).
const base = () => loopback(process.env.E2E_BASE_URL!);
const tenant = () => process.env.E2E_TENANT_ID!;
const auth = () => ({ authorization: `Bearer ${process.env.E2E_API_KEY!}` });

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

  test("the OpenAPI document is served", async ({ request }) => {
    const doc = await request.get(`${base()}/v1/openapi.json`);
    const body = await doc.json();
    expect(body.openapi).toBe("3.1.0");
    expect(body.paths["/v1/tenants/{tenant_id}/stations/{station_id}"].get["x-scopes"]).toEqual([
      "stations:read",
    ]);
  });
});
