/**
 * What authentication, rate limiting and the tenant's read cost: GET one station with a valid key
 * versus `GET /v1` (discovery: public, no database) of the same production app, through the same
 * Next route handler and /v1 router, at fixed concurrency, in the same run.
 * Run: `npx tsx bench/api-read.ts` (builds the app on first use). Writes bench/results/api-read.json.
 */
import os from "node:os";
import { loopback, startProduct } from "../e2e/fixtures/product";
import { closeDb, db } from "../server/db";
import { createApiKey } from "../server/keys/create-api-key";
import { latency, machine, round2, writeResult } from "./harness";
import { runLoad, type LoadResult } from "./load";
import { cpuMsByProcess } from "./process-cpu";
import { bootstrapProject } from "./product-project";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = 5;
const KEYS = 40; // spread over keys so the per-key limit (1200/min max) is not what is measured

/** Which of the product's processes (or this one, the load generator) a process is. */
function processName(pid: number, commandLine: string) {
  if (pid === process.pid) return "load_generator";
  if (/postgres/.test(commandLine)) return "postgres";
  if (/web-server/.test(commandLine)) return "web";
  if (/ocpp\/main/.test(commandLine)) return "gateway";
  return "other";
}

type Phase = {
  requests: number;
  non2xx: number;
  seconds: number;
  samples: number[];
  cpu: Record<string, number>;
};

/** Adds one slice of load to its route's phase, with the CPU each process spent on it. */
async function slice(phase: Phase, run: (samples: number[]) => Promise<LoadResult>) {
  const before = cpuMsByProcess(processName);
  const load = await run(phase.samples);
  const after = cpuMsByProcess(processName);
  phase.requests += load.requests;
  phase.non2xx += load.non2xx;
  phase.seconds += load.seconds;
  for (const name of ["web", "postgres", "load_generator"])
    phase.cpu[name] = (phase.cpu[name] ?? 0) + (after?.[name] ?? 0) - (before?.[name] ?? 0);
}

function summary(phase: Phase) {
  const perRequest = (ms: number) => round2(ms / Math.max(1, phase.requests));
  return {
    requests: phase.requests,
    non2xx: phase.non2xx,
    seconds: round2(phase.seconds),
    rps: Math.round(phase.requests / phase.seconds),
    ...latency(phase.samples),
    cpu_ms_per_request: Object.fromEntries(
      Object.entries(phase.cpu).map(([name, ms]) => [name, perRequest(ms)]),
    ),
  };
}

const product = await startProduct();
// The product answers at its public name, which only a browser resolves; this process uses loopback.
const base = loopback(product.baseUrl);
try {
  // Keys straight in the product's database (its running embedded server), each at the maximum
  // per-key limit, so the run measures the limiter's cost, not its refusals.
  const boot = await bootstrapProject(product, "Bench");
  const tenant = boot.tenant_id;
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const key = await createApiKey({
      tenantId: tenant,
      ownerUserId: boot.user_id,
      scopes: ["stations:read", "stations:write"],
    });
    await db().apiKey.update({ where: { id: key.id }, data: { rateLimitPerMinute: 1200 } });
    keys.push(key.secret);
  }
  await closeDb();
  const auth = { authorization: `Bearer ${keys[0]}`, "content-type": "application/json" };
  const location = await (
    await fetch(`${base}/v1/tenants/${tenant}/locations`, {
      method: "POST",
      headers: { ...auth, "idempotency-key": `bench-location-${Date.now()}` },
      body: JSON.stringify({
        name: "Bench",
        address: { street: "1 Bench St", city: "Austin", country: "US" },
        coordinates: { latitude: 30, longitude: -97 },
        time_zone: "America/Chicago",
      }),
    })
  ).json();
  const station = await (
    await fetch(`${base}/v1/tenants/${tenant}/stations`, {
      method: "POST",
      headers: { ...auth, "idempotency-key": `bench-station-${Date.now()}` },
      body: JSON.stringify({
        name: `BENCH-${Date.now()}`,
        location_id: location.id,
        connector_count: 2,
      }),
    })
  ).json();
  const stationUrl = `${base}/v1/tenants/${tenant}/stations/${station.id}`;
  // The baseline: the app's cheapest /v1 route, so both sides pay for Next.js and the router alike.
  const baselineUrl = `${base}/v1`;
  // warm up both routes (JIT, connection pools)
  await runLoad({ url: baselineUrl, concurrency: 4, seconds: 2 });
  await runLoad({
    url: stationUrl,
    concurrency: 4,
    seconds: 2,
    headers: (i) => ({ authorization: `Bearer ${keys[i % KEYS]}` }),
  });
  const loadAtStart = os.loadavg();
  // The routes take turns in short slices, so a change in the machine's other load during the
  // run falls on both alike.
  const phases = {
    baseline: { requests: 0, non2xx: 0, seconds: 0, samples: [], cpu: {} } as Phase,
    read: { requests: 0, non2xx: 0, seconds: 0, samples: [], cpu: {} } as Phase,
  };
  for (let round = 0; round < ROUNDS; round++) {
    await slice(phases.baseline, (samples) =>
      runLoad({ url: baselineUrl, concurrency: CONCURRENCY, seconds: SECONDS / ROUNDS, samples }),
    );
    await slice(phases.read, (samples) =>
      runLoad({
        url: stationUrl,
        concurrency: CONCURRENCY,
        seconds: SECONDS / ROUNDS,
        headers: (i) => ({ authorization: `Bearer ${keys[i % KEYS]}` }),
        samples,
      }),
    );
  }
  const baseline = summary(phases.baseline);
  const read = summary(phases.read);
  writeResult("api-read", {
    benchmark: "api-read",
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    concurrency: CONCURRENCY,
    seconds_per_route: SECONDS,
    keys: KEYS,
    baseline: { route: "GET /v1", ...baseline },
    get_station: read,
    ratio_rps: round2(read.rps / baseline.rps),
    ratio_p50: round2(read.p50_ms / baseline.p50_ms),
  });
} finally {
  await product.stop();
}
