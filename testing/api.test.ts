import { describe, expect, it } from "vitest";
import { z } from "zod";
import { answersAsDocumented, call } from "./api";
import { aTenantWithKey } from "./builders";
import { closedSchema } from "./strict-schema";

const url = (path: string) => `http://localhost:3000${path}`;
const health = {
  status: "ok",
  database: { ok: true, latency_ms: 1 },
  time: "2026-01-01T00:00:00Z",
};

describe("every /v1 answer in the tests is held to the OpenAPI document", () => {
  it("a success must parse with the route's response schema and declare every field", () => {
    expect(() => answersAsDocumented("GET", url("/v1/health"), 200, health)).not.toThrow();
    expect(() =>
      answersAsDocumented("GET", url("/v1/health"), 200, { ...health, uptime: 5 }),
    ).toThrow(/does not declare/);
    expect(() =>
      answersAsDocumented("GET", url("/v1/health"), 200, {
        ...health,
        database: { ...health.database, pool: 3 },
      }),
    ).toThrow(/does not declare/);
    expect(() =>
      answersAsDocumented("GET", url("/v1/health"), 200, { ...health, time: 5 }),
    ).toThrow(/response schema/);
    expect(() => answersAsDocumented("GET", url("/v1/health"), 201, health)).toThrow(
      /the document says 200/,
    );
  });

  it("an error must be the Error schema, with its code's status, and documented for the route", () => {
    const error = (code: string) => ({ error: { code, message: "m", details: {} } });
    const stations = url("/v1/tenants/1/stations");
    expect(() => answersAsDocumented("GET", stations, 404, error("not_found"))).not.toThrow();
    expect(() => answersAsDocumented("GET", stations, 422, error("not_found"))).toThrow(
      /status 404/,
    );
    expect(() => answersAsDocumented("GET", stations, 409, error("station_name_taken"))).toThrow(
      /does not document/,
    );
    expect(() =>
      answersAsDocumented("GET", stations, 404, {
        error: { ...error("not_found").error, hint: 1 },
      }),
    ).toThrow(/Error schema/);
    expect(() => answersAsDocumented("GET", stations, 404, "not found")).toThrow(/Error schema/);
  });

  it("call() checks real answers: a station list and a refusal pass as served", async () => {
    const { tenantId, key } = await aTenantWithKey();
    expect((await call("GET", `/v1/tenants/${tenantId}/stations`, { key })).status).toBe(200);
    expect((await call("GET", `/v1/tenants/${tenantId}/stations`)).status).toBe(401);
  });
});

describe("closedSchema", () => {
  it("closes objects at any depth, through arrays, unions, records, nullables and lazies", () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.object({
      name: z.string(),
      children: z.array(z.lazy(() => node)),
    });
    const schema = closedSchema(
      z.object({
        list: z.array(z.object({ a: z.number() })),
        either: z.union([z.object({ kind: z.literal("x") }), z.object({ kind: z.literal("y") })]),
        map: z.record(z.string(), z.object({ b: z.string() })),
        maybe: z.object({ c: z.boolean() }).nullable().optional(),
        tree: node,
        open: z.looseObject({ d: z.number() }),
      }),
    );
    const ok = {
      list: [{ a: 1 }],
      either: { kind: "y" },
      map: { k: { b: "v" } },
      maybe: null,
      tree: { name: "r", children: [{ name: "c", children: [] }] },
      open: { d: 1, anything: true },
    };
    expect(schema.safeParse(ok).success).toBe(true);
    for (const drift of [
      { ...ok, extra: 1 },
      { ...ok, list: [{ a: 1, extra: 1 }] },
      { ...ok, either: { kind: "y", extra: 1 } },
      { ...ok, map: { k: { b: "v", extra: 1 } } },
      { ...ok, maybe: { c: true, extra: 1 } },
      { ...ok, tree: { name: "r", children: [{ name: "c", children: [], extra: 1 }] } },
    ]) {
      expect(schema.safeParse(drift).success, JSON.stringify(drift)).toBe(false);
    }
  });
});
