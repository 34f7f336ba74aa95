/**
 * Every operation of the OpenAPI document the app serves, sent malformed input: paths (bad
 * percent-encoding, NUL, huge, negative, non-numeric, unicode ids), query strings, bodies (wrong
 * types, NUL in strings and keys, deep nesting, huge arrays, invalid JSON and UTF-8, oversize),
 * content types, credentials and other headers; with valid credentials (so requests reach
 * validation) and without. Never a 5xx, never a hang, and every error in the spec's shape.
 *
 * Seeded: a failure prints fast-check's seed and counterexample, and reruns identically.
 */
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "../db";
import { ERROR_STATUS } from "./errors";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import {
  headerValue,
  hostileAuthorization,
  exampleOf,
  hostileBody,
  hostileContentType,
  hostileQuery,
  hostileRawBody,
  hostileSegment,
  type JsonSchema,
} from "../../testing/hostile-input";
import { accessTokenFor } from "../../testing/users";
import { handleV1 } from "./routes";

const SEED = 20_261_123;
const RUNS_PER_OPERATION = 40;
const REQUEST_TIMEOUT_MS = 10_000;

type Operation = {
  method: string;
  path: string;
  operationId: string;
  security: unknown[];
  parameters: { name: string; in: string }[];
  requestBody?: { content: { "application/json": { schema: JsonSchema } } };
};

const document = (await call("GET", "/v1/openapi.json")).body as {
  paths: Record<string, Record<string, Omit<Operation, "method" | "path">>>;
};
const operations: Operation[] = Object.entries(document.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })),
);

// One project whose owner holds every scope: path tenants and teams can be the real ones, so
// requests get past access checks to validation.
const project = await aTenantWithKey();
const userToken = await accessTokenFor(project.ownerUserId, 3600);
const realIds: Record<string, string> = {
  tenant_id: String(project.tenantId),
  team_id: String(project.teamId),
};

type Body = { data: string | Uint8Array<ArrayBuffer>; contentType: string | null };
type Case = {
  method: string;
  segments: Record<string, string>;
  query: string;
  authorization: string | null;
  headers: Record<string, string>;
  body: Body | null;
};

/**
 * A valid request to `op` (real tenant and team, valid credential) with one kind of damage, so each
 * case gets past the checks before the damaged part; now and then everything is damaged at once.
 */
function caseFor(op: Operation): fc.Arbitrary<Case> {
  const pathParams = op.parameters.filter((p) => p.in === "path").map((p) => p.name);
  const queryNames = op.parameters.filter((p) => p.in === "query").map((p) => p.name);
  const schema = op.requestBody?.content["application/json"].schema;
  // The owner's key where a key is accepted on a project route, else the owner's token.
  const keyAccepted = op.security.some((s) => "apiKey" in (s as object));
  const credential = `Bearer ${keyAccepted && op.path.includes("{tenant_id}") ? project.key : userToken}`;
  const valid: Case = {
    method: op.method,
    segments: Object.fromEntries(pathParams.map((n) => [n, realIds[n] ?? "1"])),
    query: "",
    authorization: credential,
    headers: {},
    body: schema
      ? { data: JSON.stringify(exampleOf(schema)), contentType: "application/json" }
      : null,
  };
  const segments = fc.record(
    Object.fromEntries(
      pathParams.map((n) => [n, fc.oneof(fc.constant(realIds[n] ?? "1"), hostileSegment)]),
    ),
  );
  const query = hostileQuery(queryNames);
  const jsonBody = hostileBody(schema).map((value): Body => ({
    data: JSON.stringify(value) ?? "null",
    contentType: "application/json",
  }));
  const rawBody = fc
    .tuple(
      hostileRawBody(Object.keys(schema?.properties ?? {})),
      fc.oneof({ weight: 3, arbitrary: fc.constant("application/json") }, hostileContentType),
    )
    .map(([data, contentType]): Body => ({ data, contentType }));
  const body = fc.oneof({ weight: 3, arbitrary: jsonBody }, { weight: 2, arbitrary: rawBody });
  const authorization = fc.oneof(fc.constant(null), hostileAuthorization);
  const headers = fc.record(
    {
      "service-version": fc.oneof(fc.constantFrom("2026-10-14", "2026-10-15 "), headerValue),
      "idempotency-key": headerValue,
      "content-type": hostileContentType,
      "x-padding": fc.constant("y".repeat(60_000)),
    },
    { requiredKeys: [] },
  );
  const method = fc.constantFrom("HEAD", "OPTIONS", "PROPFIND", "patch", "GET", "DELETE");
  const damaged = fc.oneof(
    { weight: 3, arbitrary: segments.map((s) => ({ ...valid, segments: s })) },
    { weight: 2, arbitrary: query.map((q) => ({ ...valid, query: q })) },
    { weight: schema ? 6 : 1, arbitrary: body.map((b) => ({ ...valid, body: b })) },
    { weight: 2, arbitrary: headers.map((h) => ({ ...valid, headers: h })) },
    { weight: 1, arbitrary: authorization.map((a) => ({ ...valid, authorization: a })) },
    { weight: 1, arbitrary: method.map((m) => ({ ...valid, method: m })) },
    {
      weight: 1,
      arbitrary: fc.record({ method, segments, query, authorization, headers, body }),
    },
  );
  // One case in five is sent without credentials, whatever its damage.
  return fc
    .tuple(damaged, fc.nat(4))
    .map(([c, n]): Case => (n === 0 ? { ...c, authorization: null } : c));
}

let idempotencyKeys = 0;

function requestFor(op: Operation, c: Case): Request {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => c.segments[name] ?? "1");
  const headers = new Headers();
  for (const [name, value] of Object.entries(c.headers)) headers.set(name, value);
  if (!headers.has("idempotency-key")) {
    headers.set("idempotency-key", `fuzz-key-${String(++idempotencyKeys).padStart(6, "0")}`);
  }
  if (c.authorization !== null) headers.set("authorization", c.authorization);
  const bodyAllowed = c.method !== "GET" && c.method !== "HEAD";
  if (bodyAllowed && c.body?.contentType && !headers.has("content-type")) {
    headers.set("content-type", c.body.contentType);
  }
  return new Request(`http://localhost:3000${path}${c.query}`, {
    method: c.method,
    headers,
    body: bodyAllowed && c.body ? c.body.data : undefined,
  });
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms: ${what}`)),
      REQUEST_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How often each answer came, by status and code: the cases must keep reaching deep checks. */
const answers = new Map<string, number>();

/** Sends one request and checks the answer: below 500, and an error in the spec's shape. */
async function expectWellFormedAnswer(req: Request): Promise<void> {
  const what = `${req.method} ${req.url.slice(0, 300)}`;
  const res = await withTimeout(handleV1(req), what);
  const text = await res.text();
  const answer = `${res.status} ${/^\{"error":\{"code":"(\w+)"/.exec(text)?.[1] ?? ""}`.trim();
  answers.set(answer, (answers.get(answer) ?? 0) + 1);
  expect(res.status, `${what} answered ${res.status}: ${text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status < 400 || req.method === "HEAD") return;
  expect(res.headers.get("content-type"), what).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error?: { code?: string } };
  expect(body, what).toEqual({
    error: { code: expect.any(String), message: expect.any(String), details: expect.any(Object) },
  });
  const code = body.error?.code as keyof typeof ERROR_STATUS;
  expect(ERROR_STATUS[code], `${what}: ${code}`).toBe(res.status);
}

describe("every /v1 operation answers malformed input with a 4xx in the error shape", () => {
  // Each operation starts with fresh per-minute windows, so its cases reach past the rate limit.
  beforeEach(async () => {
    await db().rateLimitWindow.deleteMany();
  });

  it("the document lists the operations fuzzed below", () => {
    expect(operations.length).toBeGreaterThan(50);
  });

  operations.forEach((op, index) => {
    it(`${op.method} ${op.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(caseFor(op), (c) => expectWellFormedAnswer(requestFor(op, c))),
        { seed: SEED + index, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
    });
  });

  // Runs last (tests in a file run in order): a generator that stopped at the first check would
  // pass everything above without testing anything.
  it("the cases reached validation, body parsing, handlers and successes", () => {
    const count = (answer: string) => answers.get(answer) ?? 0;
    expect(count("422 validation_failed"), JSON.stringify([...answers])).toBeGreaterThan(250);
    expect(count("400 invalid_json")).toBeGreaterThan(25);
    expect(count("401 unauthenticated")).toBeGreaterThan(200);
    expect(count("404 not_found")).toBeGreaterThan(100);
    expect(count("200") + count("201")).toBeGreaterThan(100);
  });
});
