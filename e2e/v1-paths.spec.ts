import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { embeddedUrl } from "../server/db/embedded";
import { loopback } from "./fixtures/product";
import { startWebProcess, type WebProcess } from "./fixtures/web-process";

/**
 * /v1 answers the same bytes on its lean path (the web process's own server straight to the
 * router, scripts/web-v1.ts: what `npm start` serves) as through Next.js's route handler (the path
 * before, `WEB_V1_VIA_NEXT=1`). The product under test is `npm start`'s (global setup); beside it
 * runs a second web process of the same build on the same database with the switch on, as a second
 * web process of a deployment would. Every request goes to both; status, every header (names,
 * order, values) and the body must be equal, except `Date` and `Request-Id` (per request). Two
 * keys of the same project, used in step, so each answer's rate-limit counts are the same.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const product = () => new URL(loopback(process.env.E2E_BASE_URL!));
/** a project of its own (made in beforeAll): its usage counts and rate limits are this spec's alone */
let tenantId = "";
const tenant = () => tenantId;
const publicHost = () => new URL(process.env.E2E_BASE_URL!).host;
const productEnv = () => JSON.parse(process.env.E2E_ENV!) as Record<string, string>;

type Answer = { status: number; message: string; headers: [string, string][]; body: Buffer };

function send(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: target,
        // the public name, as a browser sends it (the product answers under it)
        headers: { host: publicHost(), ...headers },
        agent: false,
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const pairs: [string, string][] = [];
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
            pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
          resolve({
            status: res.statusCode ?? 0,
            message: res.statusMessage ?? "",
            headers: pairs,
            body: Buffer.concat(chunks),
          });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${target}: no answer`)));
    req.on("error", reject);
    req.end(body);
  });
}

const PER_REQUEST = new Set(["date", "request-id"]);
/**
 * What must be equal: status, reason, every header but the per-request ones, every byte of the
 * body; each side's key ID (in `/v1/me` and `/v1/access`) is the one thing told apart.
 */
const comparable = (answer: Answer) => ({
  status: answer.status,
  message: answer.message,
  headers: answer.headers.filter(([name]) => !PER_REQUEST.has(name.toLowerCase())),
  body: answer.body
    .toString("latin1") // every byte, as one char each
    .replace(new RegExp(`"(${keyIds.join("|") || "-"})"`, "g"), '"<key id>"'),
});

let viaNext: WebProcess | undefined;
const keyIds: string[] = [];
let oldPort = 0;
let newPort = 0;
const keys: Record<"full" | "readOnly" | "limited", { old: string; new: string }> = {
  full: { old: "", new: "" },
  readOnly: { old: "", new: "" },
  limited: { old: "", new: "" },
};

/** `npm run admin`'s JSON answer: `bootstrap` gives `tenant_id`, `create-key` gives `api_key`. */
function admin<T = unknown>(args: string[]): T {
  const env = { ...process.env, ...productEnv() };
  delete env.NODE_OPTIONS;
  const res = spawnSync("npm", ["run", "--silent", "admin", "--", ...args], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(`admin ${args.join(" ")}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

/** Sends one request to the path before (Next.js) and the lean path, one after the other. */
async function both(
  method: string,
  target: string,
  headers: (side: "old" | "new") => Record<string, string> = () => ({}),
  body?: string | Buffer,
) {
  // RateLimit-Reset counts whole seconds to the minute's end: both requests in one minute, and
  // in one second unless the machine is slow (then see `sameReset`).
  const now = Date.now();
  const wait =
    now % 60_000 >= 58_000 ? 60_000 - (now % 60_000) : now % 1000 > 800 ? 1000 - (now % 1000) : 0;
  if (wait) await new Promise((r) => setTimeout(r, wait));
  const start = Date.now();
  const old = await send(oldPort, method, target, headers("old"), body);
  const lean = await send(newPort, method, target, headers("new"), body);
  return {
    old,
    lean: sameReset(old, lean, Math.floor(start / 1000) !== Math.floor(Date.now() / 1000)),
  };
}

/**
 * The lean answer with the old one's RateLimit-Reset when the pair straddled a second and the
 * lean one's is exactly one second less (the same window, read a second later); any other
 * difference is kept, to fail the comparison.
 */
function sameReset(old: Answer, lean: Answer, straddled: boolean): Answer {
  const reset = (answer: Answer) =>
    answer.headers.find(([name]) => name.toLowerCase() === "ratelimit-reset")?.[1];
  const [before, after] = [reset(old), reset(lean)];
  if (!straddled || before === undefined || Number(after) !== Number(before) - 1) return lean;
  return {
    ...lean,
    headers: lean.headers.map(([name, value]) =>
      name.toLowerCase() === "ratelimit-reset" ? [name, before] : [name, value],
    ),
  };
}

/** Both paths' answers, which must be equal but for Date and Request-Id. */
async function expectSame(
  label: string,
  method: string,
  target: string,
  headers: (side: "old" | "new") => Record<string, string> = () => ({}),
  body?: string | Buffer,
) {
  const { old, lean } = await both(method, target, headers, body);
  expect(comparable(lean), label).toEqual(comparable(old));
  return lean;
}

const bearer = (kind: keyof typeof keys) => (side: "old" | "new") => ({
  authorization: `Bearer ${keys[kind][side]}`,
});
const withJson =
  (kind: keyof typeof keys, extra: Record<string, string> = {}) =>
  (side: "old" | "new") => ({
    ...bearer(kind)(side),
    "content-type": "application/json",
    ...extra,
  });

test.describe("/v1 on the lean path answers as through Next.js", () => {
  test.describe.configure({ timeout: 240_000 });

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    newPort = Number(product().port);
    viaNext = await startWebProcess({
      dataDir: process.env.E2E_DATA_DIR!,
      env: productEnv(),
      extraEnv: { WEB_V1_VIA_NEXT: "1" },
    });
    oldPort = viaNext.port;
    tenantId = String(
      admin<{ tenant_id: number }>([
        "bootstrap",
        "--email",
        `v1-paths-${Date.now().toString(36)}@example.com`,
        "--team",
        "V1 paths team",
        "--project",
        "V1 paths project",
      ]).tenant_id,
    );
    const create = (scopes: string) => {
      const key = admin<{ api_key: { id: string; secret: string } }>([
        "create-key",
        "--tenant",
        tenant(),
        "--scopes",
        scopes,
      ]).api_key;
      keyIds.push(key.id);
      return key;
    };
    const all = "stations:read,stations:write";
    for (const side of ["old", "new"] as const) {
      keys.full[side] = create(all).secret;
      keys.readOnly[side] = create("stations:read").secret;
      const limited = create("stations:read");
      admin(["set-rate-limit", limited.id, "1"]);
      keys.limited[side] = limited.secret;
    }
  });

  test.afterAll(async () => {
    await viaNext?.stop();
  });

  test("public routes, discovery and documents", async () => {
    // the health answer holds its own time and the database's latency
    const { old: healthOld, lean: healthNew } = await both("GET", "/v1/health");
    const steady = (answer: Answer) => ({
      ...comparable(answer),
      body: answer.body
        .toString()
        .replace(/"latency_ms":[\d.]+/, '"latency_ms":0')
        .replace(/"time":"[^"]+"/, '"time":""'),
    });
    expect(steady(healthNew)).toEqual(steady(healthOld));
    for (const target of [
      "/v1",
      "/v1?x=1",
      "/v1/capabilities",
      "/v1/openapi.json",
      "/v1/config",
      "/v1/branding",
    ])
      await expectSame(`GET ${target}`, "GET", target);
    await expectSame("HEAD /v1", "HEAD", "/v1");
    await expectSame("HEAD /v1/openapi.json", "HEAD", "/v1/openapi.json");
    await expectSame("OPTIONS /v1/health", "OPTIONS", "/v1/health");
    await expectSame(
      "OPTIONS stations",
      "OPTIONS",
      `/v1/tenants/${tenant()}/stations`,
      bearer("full"),
    );
    await expectSame("Service-Version asked", "GET", "/v1", () => ({
      "service-version": "2026-10-15",
    }));
    await expectSame("Service-Version unknown", "GET", "/v1", () => ({
      "service-version": "1999-01-01",
    }));
  });

  test("compression and the headers Next.js reads", async () => {
    const stations = `/v1/tenants/${tenant()}/stations`;
    for (const encoding of ["gzip", "deflate", "br", "gzip, deflate, br", "identity", "*"]) {
      const asked = () => ({ "accept-encoding": encoding });
      await expectSame(`openapi.json, ${encoding}`, "GET", "/v1/openapi.json", asked);
      await expectSame(`/v1, ${encoding}`, "GET", "/v1", asked);
      await expectSame(`list, ${encoding}`, "GET", stations, (side) => ({
        ...bearer("full")(side),
        ...asked(),
      }));
      await expectSame(`404, ${encoding}`, "GET", "/v1/nope", asked);
      await expectSame(`HEAD, ${encoding}`, "HEAD", "/v1/openapi.json", asked);
      await expectSame(`OPTIONS, ${encoding}`, "OPTIONS", "/v1", asked);
    }
    for (const [name, value] of [
      ["rsc", "1"],
      ["next-router-prefetch", "1"],
      ["next-router-state-tree", "%5B%22%22%5D"],
      ["next-url", "/v1"],
      ["x-nextjs-data", "1"],
      ["x-middleware-subrequest", "proxy:proxy:proxy:proxy:proxy"],
      ["x-middleware-prefetch", "1"],
      ["purpose", "prefetch"],
      ["x-forwarded-for", "203.0.113.9"],
      ["x-forwarded-host", "elsewhere.example"],
      ["x-forwarded-proto", "https"],
      ["accept", "text/html"],
      ["cookie", "authjs.session-token=nonsense"],
    ])
      await expectSame(`header ${name}`, "GET", "/v1", () => ({ [name!]: value! }));
    for (const query of ["?_rsc=abc", "?__nextDataReq=1", "?nxtPslug=1", "?a=1&a=2", "?%zz"])
      await expectSame(`query ${query}`, "GET", `/v1${query}`);
    await expectSame("query on a list", "GET", `${stations}?_rsc=1&limit=2`, bearer("full"));
  });

  test("errors before the route: 404, 405, trailing slash, raw paths, 401", async () => {
    await expectSame("unknown route", "GET", "/v1/no/such/route");
    await expectSame("405", "PUT", "/v1/health", () => ({ "content-length": "0" }));
    await expectSame("405 DELETE", "DELETE", "/v1");
    await expectSame("trailing slash", "GET", "/v1/health/");
    await expectSame("trailing slash and query", "GET", "/v1/health/?a=1&b=%20");
    await expectSame("undecodable path", "GET", "/v1/tenants/%ff/stations");
    await expectSame("encoded path", "GET", "/v1/tenants/%31/stations", bearer("full"));
    await expectSame("dot segments", "GET", "/v1/tenants/../capabilities");
    await expectSame("double slash", "GET", "/v1//health");
    await expectSame("no key", "GET", `/v1/tenants/${tenant()}/stations`);
    await expectSame("bad key", "GET", `/v1/tenants/${tenant()}/stations`, () => ({
      authorization: "Bearer cpk_live_nope",
    }));
    await expectSame("basic auth", "GET", `/v1/tenants/${tenant()}/stations`, () => ({
      authorization: "Basic Zm9vOmJhcg==",
    }));
  });

  test("reads, 403, 404 and 422 with keys", async () => {
    const stations = `/v1/tenants/${tenant()}/stations`;
    await expectSame("list", "GET", stations, bearer("full"));
    await expectSame("list paged", "GET", `${stations}?limit=1`, bearer("full"));
    await expectSame("bad query", "GET", `${stations}?limit=abc`, bearer("full"));
    await expectSame("unknown station", "GET", `${stations}/999999`, bearer("full"));
    await expectSame("bad id", "GET", `${stations}/x`, bearer("full"));
    await expectSame("other tenant", "GET", `/v1/tenants/999999/stations`, bearer("full"));
    await expectSame("access", "GET", "/v1/access", bearer("full"));
    await expectSame("user route with a key", "GET", "/v1/me", bearer("full"));
    await expectSame(
      "insufficient scope",
      "POST",
      `/v1/tenants/${tenant()}/locations`,
      withJson("readOnly", { "idempotency-key": "cmp-scope" }),
      "{}",
    );
  });

  test("writes: 201, idempotent replay, conflicts, 400, 413, 415, 422", async () => {
    const locations = `/v1/tenants/${tenant()}/locations`;
    const location = JSON.stringify({
      name: "Paths depot",
      address: { street: "1 Test Way", city: "Austin", country: "US" },
      coordinates: { latitude: 30.2672, longitude: -97.7431 },
      time_zone: "America/Chicago",
    });
    // Created twice (one location per path): equal but for each one's own ID and times.
    const { old, lean } = await both(
      "POST",
      locations,
      withJson("full", { "idempotency-key": "cmp-location-1" }),
      location,
    );
    expect(old.status).toBe(201);
    const mask = (answer: Answer) => {
      const id = String((JSON.parse(answer.body.toString()) as { id: number }).id);
      const masked = comparable(answer);
      const scrub = (text: string) =>
        text
          .replaceAll(`"id":${id},`, `"id":"<id>",`)
          .replaceAll(`/locations/${id}`, "/locations/<id>")
          .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");
      return {
        ...masked,
        headers: masked.headers.map(([n, v]) => [n, scrub(v)]),
        body: scrub(masked.body),
      };
    };
    expect(mask(lean)).toEqual(mask(old));
    // the replay of each: the stored answer again
    const replayOld = await send(
      oldPort,
      "POST",
      locations,
      withJson("full", { "idempotency-key": "cmp-location-1" })("old"),
      location,
    );
    const replayNew = await send(
      newPort,
      "POST",
      locations,
      withJson("full", { "idempotency-key": "cmp-location-1" })("new"),
      location,
    );
    expect(mask(replayNew)).toEqual(mask(replayOld));
    await expectSame(
      "same key, other body",
      "POST",
      locations,
      withJson("full", { "idempotency-key": "cmp-location-1" }),
      location.replace("Paths depot", "Other"),
    );
    // a station of the old path's location, read the same through both
    const locationId = (JSON.parse(old.body.toString()) as { id: number }).id;
    const created = await send(
      oldPort,
      "POST",
      `/v1/tenants/${tenant()}/stations`,
      withJson("full", { "idempotency-key": "cmp-station-1" })("old"),
      JSON.stringify({ name: `PATHS-${Date.now()}`, location_id: locationId, connector_count: 2 }),
    );
    expect(created.status).toBe(201);
    const stationId = (JSON.parse(created.body.toString()) as { id: number }).id;
    // the other key's count kept in step
    await send(newPort, "GET", `/v1/tenants/${tenant()}/stations`, bearer("full")("new"));
    await expectSame(
      "station read",
      "GET",
      `/v1/tenants/${tenant()}/stations/${stationId}`,
      bearer("full"),
    );
    await expectSame(
      "station read, read-only key",
      "GET",
      `/v1/tenants/${tenant()}/stations/${stationId}`,
      bearer("readOnly"),
    );
    await expectSame(
      "HEAD station",
      "HEAD",
      `/v1/tenants/${tenant()}/stations/${stationId}`,
      bearer("full"),
    );
    await expectSame("location read", "GET", `${locations}/${locationId}`, bearer("full"));
    await expectSame("no Idempotency-Key", "POST", locations, withJson("full"), location);
    await expectSame(
      "invalid JSON",
      "POST",
      locations,
      withJson("full", { "idempotency-key": "cmp-bad-json" }),
      "{oops",
    );
    await expectSame(
      "wrong media type",
      "POST",
      locations,
      (side) => ({
        ...bearer("full")(side),
        "content-type": "text/plain",
        "idempotency-key": "cmp-415",
      }),
      location,
    );
    await expectSame(
      "too large",
      "POST",
      locations,
      withJson("full", { "idempotency-key": "cmp-413" }),
      JSON.stringify({ name: "x".repeat(70_000) }),
    );
    await expectSame(
      "too large, chunked",
      "POST",
      locations,
      withJson("full", { "idempotency-key": "cmp-413c", "transfer-encoding": "chunked" }),
      JSON.stringify({ name: "x".repeat(70_000) }),
    );
    await expectSame(
      "schema",
      "POST",
      locations,
      withJson("full", { "idempotency-key": "cmp-422" }),
      JSON.stringify({ name: 5, extra: true }),
    );
    await expectSame(
      "NUL in a string",
      "POST",
      locations,
      withJson("full", { "idempotency-key": "cmp-nul" }),
      JSON.stringify({ name: "a\u0000b" }),
    );
    await expectSame(
      "patch a station: 422",
      "PATCH",
      `/v1/tenants/${tenant()}/stations/${stationId}`,
      withJson("full"),
      JSON.stringify({ connector_count: -1 }),
    );
  });

  test("rate limited: 429 with Retry-After", async () => {
    const target = `/v1/tenants/${tenant()}/stations`;
    await expectSame("within the limit", "GET", target, bearer("limited"));
    // The reset is in whole seconds to the minute's end: asked again should the two requests
    // straddle a second.
    for (let attempt = 0; ; attempt += 1) {
      const { old, lean } = await both("GET", target, bearer("limited"));
      expect(old.status).toBe(429);
      const same = JSON.stringify(comparable(lean)) === JSON.stringify(comparable(old));
      if (same || attempt === 2) {
        expect(comparable(lean)).toEqual(comparable(old));
        break;
      }
    }
  });

  test("the lean path's requests are counted for team usage, each once", async () => {
    const port = fs
      .readFileSync(path.join(process.env.E2E_DATA_DIR!, "postgres", "postmaster.pid"), "utf8")
      .split("\n")[3];
    const client = new pg.Client({ connectionString: embeddedUrl(Number(port)) });
    await client.connect();
    try {
      const counted = async () =>
        Number(
          (
            await client.query<{ n: string }>(
              "SELECT coalesce(sum(count), 0) AS n FROM api_request_counts WHERE tenant_id = $1",
              [Number(tenant())],
            )
          ).rows[0]!.n,
        );
      // both web processes write what they counted every 5 s: wait until nothing is pending
      let before = await counted();
      for (;;) {
        await new Promise((r) => setTimeout(r, 6_000));
        const now = await counted();
        if (now === before) break;
        before = now;
      }
      const stations = `/v1/tenants/${tenant()}/stations`;
      for (let i = 0; i < 5; i += 1)
        expect((await send(newPort, "GET", stations, bearer("full")("new"))).status).toBe(200);
      expect((await send(newPort, "GET", `${stations}/x`, bearer("full")("new"))).status).toBe(422);
      await expect.poll(counted, { timeout: 15_000 }).toBe(before + 6);
      await new Promise((r) => setTimeout(r, 6_000));
      expect(await counted()).toBe(before + 6);
    } finally {
      await client.end();
    }
  });
});
