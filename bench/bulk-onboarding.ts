/**
 * Registering a fleet with connection passwords: BENCH_STATIONS stations (default 3,000) through
 * the single routes (`POST /stations` then `PUT /stations/{id}/credentials`, as a client does one
 * station at a time: sequentially, and BENCH_CONCURRENCY stations at a time) versus the bulk route
 * (`POST /stations/bulk`, 100 per request, BENCH_BULK_CONCURRENCY requests at a time), through the
 * real /v1 router in-process (no socket, no Next.js: both sides alike) on a scratch database.
 * Passwords are the product's scrypt (N=2^14, r=8, p=1) on both sides; stations per second, and
 * the CPU this process (the whole product here) and PostgreSQL spent.
 *
 *   npx tsx --conditions=react-server bench/bulk-onboarding.ts
 *   env BENCH_STATIONS (3000), BENCH_CONCURRENCY (8), BENCH_BULK_CONCURRENCY (1),
 *       BENCH_SEQUENTIAL (the sequential single-route run's stations; default BENCH_STATIONS / 10,
 *       its rate is steady, and at ~15/s the whole fleet would take minutes)
 *
 * Writes bench/results/bulk-onboarding.json.
 */
import os from "node:os";
import { machine, round2, scratchDatabase, writeResult } from "./harness";
import { cpuMsByProcess } from "./process-cpu";

const STATIONS = Number(process.env.BENCH_STATIONS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const BULK_CONCURRENCY = Number(process.env.BENCH_BULK_CONCURRENCY ?? 1);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? Math.max(1, Math.round(STATIONS / 10)));
const KEYS = 20; // each at the highest per-key limit, so the limiter is not what is measured

const database = await scratchDatabase("bulk-onboarding");
const { db, closeDb } = await import("../server/db");
const { createApiKey } = await import("../server/keys/create-api-key");
const { handleV1 } = await import("../server/http/routes");
const { MAX_BULK_STATIONS } = await import("../server/stations/register-stations");
const { passwordPool } = await import("../server/lib/password-pool");

const processName = (pid: number, commandLine: string) =>
  pid === process.pid ? "product" : /postgres/.test(commandLine) ? "postgres" : "other";

let requestNo = 0;
async function v1(key: string, method: string, url: string, body: unknown) {
  const res = await handleV1(
    new Request(`http://localhost:3000${url}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "idempotency-key": `bench-${Date.now()}-${++requestNo}`,
      },
      body: JSON.stringify(body),
    }),
  );
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const owner = await db().user.create({ data: { email: "bench@example.test" } });
const team = await db().team.create({
  data: { name: "Bench", members: { create: { userId: owner.id, role: "owner" } } },
});
const keys: string[] = [];
async function aTenant(name: string) {
  const tenant = await db().tenant.create({ data: { teamId: team.id, name } });
  const tenantKeys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const key = await createApiKey({
      tenantId: tenant.id,
      ownerUserId: owner.id,
      scopes: ["stations:read", "stations:write"],
    });
    await db().apiKey.update({ where: { id: key.id }, data: { rateLimitPerMinute: 1200 } });
    tenantKeys.push(key.secret);
  }
  keys.push(...tenantKeys);
  const path = `/v1/tenants/${tenant.id}`;
  const location = await v1(tenantKeys[0]!, "POST", `${path}/locations`, {
    name: "Bench",
    address: { street: "1 Bench St", city: "Austin", country: "US" },
    coordinates: { latitude: 30, longitude: -97 },
    time_zone: "America/Chicago",
  });
  return { path, keys: tenantKeys, locationId: location.id as number };
}

const password = (i: number) => `bench-password-${String(i).padStart(8, "0")}`;

/** Runs `work(i)` for i in [0, count) with `concurrency` at a time; seconds and CPU per process. */
async function timed(count: number, concurrency: number, work: (i: number) => Promise<void>) {
  const cpuBefore = cpuMsByProcess(processName);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuMsByProcess(processName);
  const cpu = Object.fromEntries(
    ["product", "postgres"].map((n) => [
      n,
      Math.round((cpuAfter?.[n] ?? 0) - (cpuBefore?.[n] ?? 0)),
    ]),
  );
  return { seconds, cpu };
}

async function singleRoutes(label: string, count: number, concurrency: number) {
  const t = await aTenant(label);
  const run = await timed(count, concurrency, async (i) => {
    const key = t.keys[i % t.keys.length]!;
    const station = await v1(key, "POST", `${t.path}/stations`, {
      name: `${label}-${i}`,
      location_id: t.locationId,
      connector_count: 1,
    });
    await v1(key, "PUT", `${t.path}/stations/${station.id as number}/credentials`, {
      password: password(i),
    });
  });
  return summary(count, run, { requests: count * 2, concurrency });
}

async function bulkRoute(label: string, count: number, concurrency: number) {
  const t = await aTenant(label);
  const batches = Math.ceil(count / MAX_BULK_STATIONS);
  const run = await timed(batches, concurrency, async (b) => {
    const first = b * MAX_BULK_STATIONS;
    const size = Math.min(MAX_BULK_STATIONS, count - first);
    const answer = await v1(t.keys[b % t.keys.length]!, "POST", `${t.path}/stations/bulk`, {
      stations: Array.from({ length: size }, (_, j) => ({
        name: `${label}-${first + j}`,
        location_id: t.locationId,
        connector_count: 1,
        password: password(first + j),
      })),
    });
    if (answer.created !== size)
      throw new Error(`batch ${b}: ${JSON.stringify(answer).slice(0, 300)}`);
  });
  return summary(count, run, {
    requests: batches,
    per_request: MAX_BULK_STATIONS,
    concurrency,
    pool_threads: passwordPool().size,
  });
}

function summary(
  count: number,
  run: { seconds: number; cpu: Record<string, number> },
  extra: Record<string, number>,
) {
  return {
    stations: count,
    ...extra,
    seconds: round2(run.seconds),
    stations_per_second: round2(count / run.seconds),
    cpu_ms_per_station: Object.fromEntries(
      Object.entries(run.cpu).map(([n, ms]) => [n, round2(ms / count)]),
    ),
  };
}

try {
  // warm-up: JIT, pools, the hashing threads
  await singleRoutes("WARM-S", 10, 2);
  await bulkRoute("WARM-B", 10, 1);
  const loadAtStart = os.loadavg();
  const bulk = await bulkRoute("BULK", STATIONS, BULK_CONCURRENCY);
  const single = await singleRoutes("SINGLE", STATIONS, CONCURRENCY);
  const sequential = await singleRoutes("SEQ", SEQUENTIAL, 1);
  writeResult("bulk-onboarding", {
    benchmark: "bulk-onboarding",
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    how: "in-process /v1 router (no socket, no Next.js), scratch embedded PostgreSQL; passwords scrypt N=2^14 r=8 p=1 on every path",
    bulk_route: { route: "POST /v1/tenants/{t}/stations/bulk", ...bulk },
    single_routes_concurrent: {
      route: "POST /stations + PUT /stations/{id}/credentials per station",
      ...single,
    },
    single_routes_sequential: {
      route: "POST /stations + PUT /stations/{id}/credentials per station, one at a time",
      ...sequential,
      projected_seconds_for_fleet: round2(STATIONS / sequential.stations_per_second),
    },
    speedup_vs_concurrent: round2(bulk.stations_per_second / single.stations_per_second),
    speedup_vs_sequential: round2(bulk.stations_per_second / sequential.stations_per_second),
  });
} finally {
  await passwordPool().close();
  await closeDb();
  await database.stop();
}
