/**
 * Every numeric input of every operation in the OpenAPI document the app serves (path and query
 * parameters, and every number in a body, in every variant of a `oneOf`), sent each boundary
 * number (`BOUNDARY_NUMBERS`: int4 and safe-integer edges, tiny, huge and negative-zero exponent
 * forms) inside an otherwise valid request about real resources. Never a 5xx: a number the
 * columns cannot hold is a 422, not a database error. And the document says so: every integer a
 * request carries is bounded by what its column holds.
 *
 * Deterministic (every field times every value), where fuzz.test.ts samples: a random sample
 * of 40 cases per operation never sent 2^31 to `stations[]`, which an outside fuzzer found.
 */
import { describe, expect, it } from "vitest";
import { db } from "../db";
import { INT4_MAX } from "../lib/int4";
import { call, idem } from "../../testing/api";
import { aLocation, aStation, aTenantWithKey } from "../../testing/builders";
import {
  BOUNDARY_NUMBERS,
  minimalExampleOf,
  jsonWith,
  numericFields,
  type JsonSchema,
} from "../../testing/hostile-input";
import { accessTokenFor } from "../../testing/users";

type Parameter = { name: string; in: string; schema?: JsonSchema & { pattern?: string } };
type Operation = {
  method: string;
  path: string;
  security: unknown[];
  parameters: Parameter[];
  requestBody?: { content: { "application/json": { schema: JsonSchema } } };
};

const document = (await call("GET", "/v1/openapi.json")).body as {
  paths: Record<string, Record<string, Omit<Operation, "method" | "path">>>;
};
const operations: Operation[] = Object.entries(document.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })),
);

const isNumeric = (schema: JsonSchema | undefined) =>
  [schema?.type].flat().some((t) => t === "integer" || t === "number");
/** Path segments that are integer ids (`^[0-9]{1,10}$`). */
const isIdSegment = (p: Parameter) => p.in === "path" && /\[0-9\]/.test(p.schema?.pattern ?? "");

// A project whose owner holds every scope, with one of each resource an id in a path or a body
// can name, so a request gets past "not found" to the code that uses the number.
const project = await aTenantWithKey();
const userToken = await accessTokenFor(project.ownerUserId, 3600);
const location = await aLocation(project.tenantId, project.key);
const station = await aStation(project.tenantId, project.key, { location_id: location.id });
const created = async (path: string, body: unknown) => {
  const res = await call("POST", `/v1/tenants/${project.tenantId}${path}`, {
    key: project.key,
    body,
    idempotencyKey: idem(),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number | string };
};
const tariff = await created("/tariffs", { name: "Flat", rate_minor_per_kwh: 30 });
const webhook = await created("/webhooks", {
  url: "https://hooks.example.com/hooks",
  events: ["webhook.test"],
});
const connectorId = station.connectors[0]!.id;
const bill = await created("/bills", {
  station_id: station.id,
  connector_id: connectorId,
  tariff_id: tariff.id,
  source: "simulated",
});
const session = await created("/charging-sessions", {
  station_id: station.id,
  connector_id: connectorId,
  tariff_id: tariff.id,
  source: "simulated",
});
const realIds: Record<string, string | number> = {
  tenant_id: project.tenantId,
  team_id: project.teamId,
  user_id: project.ownerUserId,
  location_id: location.id,
  station_id: station.id,
  connector_id: connectorId,
  tariff_id: tariff.id,
  webhook_id: webhook.id,
  bill_id: bill.id,
  session_id: session.id,
  key_id: project.keyId,
};
/** A value for a path parameter: the real resource's id, else one its pattern accepts. */
const segmentFor = (p: Parameter) =>
  String(
    realIds[p.name] ??
      (isIdSegment(p) ? 1 : `${/^\^([a-z]+_)/.exec(p.schema?.pattern ?? "")?.[1] ?? "x_"}0`),
  );

/** Fields a body needs besides its required ones (the rules between fields are in words). */
const EXTRAS: Record<string, Record<string, unknown>> = {
  "POST /v1/tenants/{tenant_id}/tariffs/simulate": { tariff_id: tariff.id },
  "POST /v1/tenants/{tenant_id}/tariffs": { rate_minor_per_kwh: 30 },
};

/** The schema's example, naming the real resources wherever a field is an id of one. */
function withRealIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withRealIds);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      typeof v === "number" && typeof realIds[k] === "number" ? realIds[k] : withRealIds(v),
    ]),
  );
}

type Probe = { where: string; path: string; query: string; body?: string };

/** One request per numeric input and boundary number. */
function probesOf(op: Operation): Probe[] {
  const params = op.parameters.filter((p) => p.in === "path" || p.in === "query");
  const pathWith = (name?: string, value?: string) =>
    op.path.replace(/\{(\w+)\}/g, (_, n: string) =>
      n === name ? value! : segmentFor(params.find((p) => p.name === n)!),
    );
  const schema = op.requestBody?.content["application/json"].schema;
  const extras = EXTRAS[`${op.method} ${op.path}`] ?? {};
  const complete = (example: unknown, path: (string | number)[] = []) =>
    withRealIds(
      example && typeof example === "object" && !Array.isArray(example)
        ? {
            ...Object.fromEntries(Object.entries(extras).filter(([k]) => k !== path[0])),
            ...example,
          }
        : example,
    );
  const validBody = schema ? JSON.stringify(complete(minimalExampleOf(schema))) : undefined;
  const probes: Probe[] = [];
  for (const value of BOUNDARY_NUMBERS) {
    for (const p of params.filter(isIdSegment))
      probes.push({
        where: `path ${p.name}=${value}`,
        path: pathWith(p.name, value),
        query: "",
        body: validBody,
      });
    for (const p of params.filter((p) => p.in === "query" && isNumeric(p.schema)))
      probes.push({
        where: `query ${p.name}=${value}`,
        path: pathWith(),
        query: `?${p.name}=${value}`,
        body: validBody,
      });
    for (const { example, path } of numericFields(schema))
      probes.push({
        where: `body ${path.join(".")}=${value}`,
        path: pathWith(),
        query: "",
        body: jsonWith(complete(example, path), path, value),
      });
  }
  return probes;
}

/** Integers of `bigint` columns: energy registers (Wh), exact up to 2^53 − 1. */
const WIDE_INTEGERS = new Set([
  "POST /v1/tenants/{tenant_id}/tariffs/simulate body.session.meter_values[].energy_wh",
]);

/** How often each status was answered: the probes must reach handlers, not stop at validation. */
const answers = new Map<number, number>();

describe("boundary numbers in every numeric input", () => {
  it("the document bounds every integer a request carries by the int4 columns, every number by a finite maximum", () => {
    const unbounded: string[] = [];
    const visit = (schema: JsonSchema | undefined, where: string) => {
      if (!schema) return;
      const s = schema as JsonSchema & { maximum?: number; exclusiveMaximum?: number };
      const bound = WIDE_INTEGERS.has(where) ? Number.MAX_SAFE_INTEGER : INT4_MAX;
      if (
        [s.type].flat().includes("integer") &&
        !((s.maximum ?? s.exclusiveMaximum ?? Infinity) <= bound)
      )
        unbounded.push(where);
      if ([s.type].flat().includes("number") && !Number.isFinite(s.maximum ?? s.exclusiveMaximum))
        unbounded.push(where);
      for (const [k, v] of Object.entries(s.properties ?? {})) visit(v, `${where}.${k}`);
      visit(s.items, `${where}[]`);
      [...(s.oneOf ?? []), ...(s.anyOf ?? [])].forEach((v) => visit(v, where));
    };
    for (const op of operations) {
      for (const p of op.parameters) visit(p.schema, `${op.method} ${op.path} ${p.in} ${p.name}`);
      visit(op.requestBody?.content["application/json"].schema, `${op.method} ${op.path} body`);
    }
    expect(unbounded).toEqual([]);
  });

  operations.forEach((op) => {
    const probes = probesOf(op);
    if (probes.length === 0) return;
    it(`${op.method} ${op.path} (${probes.length} requests)`, async () => {
      const keyAccepted = op.security.some((s) => "apiKey" in (s as object));
      const credential = keyAccepted && op.path.includes("{tenant_id}") ? project.key : userToken;
      const failures: string[] = [];
      for (const [i, probe] of probes.entries()) {
        // fresh per-minute windows (180 requests a minute per key): a 429 would hide the answer
        if (i % 100 === 0) await db().rateLimitWindow.deleteMany();
        const res = await call(op.method, `${probe.path}${probe.query}`, {
          key: credential,
          idempotencyKey: idem(),
          ...(probe.body === undefined
            ? {}
            : { raw: probe.body, headers: { "content-type": "application/json" } }),
        });
        answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
        console.log(
          `${op.method} ${op.path} ${probe.where} -> ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
        );
        if (res.status >= 500 || res.status === 429)
          failures.push(`${probe.where}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
      expect(failures).toEqual([]);
    });
  });

  // Runs last: boundary values inside valid requests are accepted where they fit (2xx), refused
  // where they do not (422), and reach the handlers' own checks (404, 409).
  it("the probes reached validation, handlers and successes", () => {
    const count = (status: number) => answers.get(status) ?? 0;
    const seen = JSON.stringify([...answers]);
    expect(count(422), seen).toBeGreaterThan(1_000);
    expect(count(200) + count(201) + count(202), seen).toBeGreaterThan(120);
    expect(count(404) + count(409), seen).toBeGreaterThan(500);
  });
});
