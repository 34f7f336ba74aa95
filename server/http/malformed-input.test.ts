import { describe, expect, it } from "vitest";
import { call, idem } from "../../testing/api";
import { aLocationBody, aTenantWithKey } from "../../testing/builders";
import { MAX_JSON_DEPTH } from "./body";

const json = { "content-type": "application/json" };
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

const expectError = (
  res: { status: number; body: any },
  status: number,
  code: string,
): { fields?: { field: string; location: string; message: string }[] } & Record<
  string,
  unknown
> => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Object) },
  });
  return res.body.error.details;
};

describe("U+0000 is refused everywhere, naming where it was", () => {
  it("in a body string, at any depth: 422 validation_failed", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const top = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: aLocationBody({ name: "a\u0000b" }),
      idempotencyKey: idem(),
    });
    expect(expectError(top, 422, "validation_failed").fields).toEqual([
      { field: "name", location: "body", message: expect.stringContaining("U+0000") },
    ]);
    const deep = await call("POST", `/v1/tenants/${tenantId}/locations`, {
      key,
      body: aLocationBody({ address: { street: "1\u0000", city: "X", country: "US" } }),
      idempotencyKey: idem(),
    });
    expect(expectError(deep, 422, "validation_failed").fields?.[0]?.field).toBe("address.street");
  });

  it("in a body's field name, and in bodies the handler validates itself (tariffs)", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const name = await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
      key,
      raw: '{"rate_minor_per_kwh":30,"ru\\u0000les":{}}',
      headers: json,
    });
    expect(expectError(name, 422, "validation_failed").fields?.[0]?.field).toBe("ru\\u0000les");
    const alt = await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
      key,
      body: { rate_minor_per_kwh: 30, tariff_alt_text: [{ language: "en", text: "x\u0000" }] },
    });
    expect(expectError(alt, 422, "validation_failed").fields?.[0]?.field).toBe(
      "tariff_alt_text.0.text",
    );
  });

  it("in a string path id: 422 naming the parameter; in the tenant id: 404 as any bad tenant", async () => {
    const { tenantId, key } = await aTenantWithKey();
    for (const method of ["GET", "DELETE"]) {
      const res = await call(method, `/v1/tenants/${tenantId}/webhooks/%00`, { key });
      expect(expectError(res, 422, "validation_failed").fields).toEqual([
        { field: "webhook_id", location: "path", message: expect.stringContaining("U+0000") },
      ]);
    }
    const op = await call("GET", `/v1/tenants/${tenantId}/operations/op_a%00b`, { key });
    expect(expectError(op, 422, "validation_failed").fields?.[0]?.field).toBe("operation_id");
    const tenant = await call("GET", `/v1/tenants/%00/stations`, { key });
    expectError(tenant, 404, "not_found");
  });

  it("in a query parameter: 422 naming it", async () => {
    const { tenantId, key } = await aTenantWithKey();
    for (const name of ["external_reference", "name"]) {
      const res = await call("GET", `/v1/tenants/${tenantId}/stations?${name}=a%00b`, { key });
      expect(expectError(res, 422, "validation_failed").fields).toEqual([
        { field: name, location: "query", message: expect.stringContaining("U+0000") },
      ]);
    }
  });
});

describe(`JSON bodies nest at most ${MAX_JSON_DEPTH} levels`, () => {
  it("6,000 levels on the tariff routes: 400 invalid_json with the limit, not a stack overflow", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const deep = nested(6000);
    const bodies = [
      `{"x":${deep}}`,
      `{"rules":${deep}}`,
      `${'{"a":'.repeat(6000)}1${"}".repeat(6000)}`,
    ];
    for (const raw of bodies) {
      for (const idempotencyKey of [undefined, idem()]) {
        const res = await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
          key,
          raw,
          headers: json,
          idempotencyKey,
        });
        expect(expectError(res, 400, "invalid_json")).toEqual({ max_depth: MAX_JSON_DEPTH });
      }
    }
    const simulate = await call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
      key,
      raw: `{"tariff":{"x":${deep}},"session":{}}`,
      headers: json,
    });
    expectError(simulate, 400, "invalid_json");
  });

  it(`exactly ${MAX_JSON_DEPTH} levels parse (then meet the schema); brackets inside strings do not count`, async () => {
    const { tenantId, key } = await aTenantWithKey();
    const post = (raw: string) =>
      call("POST", `/v1/tenants/${tenantId}/tariffs`, {
        key,
        raw,
        headers: json,
        idempotencyKey: idem(),
      });
    expectError(await post(`{"x":${nested(MAX_JSON_DEPTH - 1)}}`), 422, "tariff_invalid");
    expectError(await post(`{"x":${nested(MAX_JSON_DEPTH)}}`), 400, "invalid_json");
    const brackets = await post(
      JSON.stringify({ rate_minor_per_kwh: 30, name: `[{\\"${"[".repeat(150)}` }),
    );
    expect(brackets.status, JSON.stringify(brackets.body)).toBe(201);
  });
});
