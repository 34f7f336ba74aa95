/**
 * What authentication, rate limiting and the tenant's read cost: GET one station with a valid key
 * versus `GET /v1` (discovery: public, no database) of the same production app, at fixed
 * concurrency, in the same run; each on both of the web process's /v1 paths: the product's own web
 * process (`npm start`: /v1 straight to the router, scripts/web-v1.ts) and a second web process of
 * the same build on the same database with `WEB_V1_VIA_NEXT=1` (through Next.js's route handler,
 * the path before). With BENCH_PROFILE=1, then a CPU profile of one more web process per path
 * under the station read, summarized by self time per part of the stack (bench/cpu-profile.ts).
 * Last, the station read once more with the other web process stopped (`alone`): the product's web
 * process alone on its database, as `npm start` runs it.
 * Run: `npm run bench -- api-read` (builds the app on first use). Writes bench/results/api-read.json.
 */
import os from "node:os";
import { loopback, startProduct } from "../e2e/fixtures/product";
import { startWebProcess, type WebProcess } from "../e2e/fixtures/web-process";
import { closeDb, db } from "../server/db";
import { createApiKey } from "../server/keys/create-api-key";
import { latency, machine, round2, writeResult } from "./harness";
import { runLoad, type LoadResult } from "./load";
import { cpuMsByProcess } from "./process-cpu";
import { bootstrapProject } from "./product-project";
import { inspectorUrl, startProfile, summarize } from "./cpu-profile";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PROFILE = process.env.BENCH_PROFILE === "1";
const ROUNDS = 5;
// Spread over keys so the per-key limit (1200/min max) is not what is measured: 200 keys allow
// 4,000 requests a second (BENCH_KEYS: fewer keys, each back sooner; bench/README.md).
const KEYS = Number(process.env.BENCH_KEYS ?? 200);

let viaNextPid = 0;

/** Which of the product's processes (or this one, the load generator) a process is. */
function processName(pid: number, commandLine: string) {
  if (pid === process.pid) return "load_generator";
  if (/postgres/.test(commandLine)) return "postgres";
  if (pid === viaNextPid) return "web_via_next";
  if (/web-server/.test(commandLine)) return "web";
  if (/ocpp\/main/.test(commandLine)) return "gateway";
  return "other";
}

type Phase = {
  /** the process name of the web process the requests go to */
  web: "web" | "web_via_next";
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
  for (const name of ["web", "postgres", "load_generator"]) {
    // the web process this phase's requests went to
    const process = name === "web" ? phase.web : name;
    phase.cpu[name] = (phase.cpu[name] ?? 0) + (after?.[process] ?? 0) - (before?.[process] ?? 0);
  }
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

const newPhase = (web: Phase["web"]): Phase => ({
  web,
  requests: 0,
  non2xx: 0,
  seconds: 0,
  samples: [],
  cpu: {},
});

const product = await startProduct();
// The product answers at its public name, which only a browser resolves; this process uses loopback.
const base = loopback(product.baseUrl);
const extra: WebProcess[] = [];
try {
  // The path before, beside the product: same build, same database, /v1 through Next.js.
  const viaNext = await startWebProcess({
    dataDir: product.dataDir,
    env: product.env,
    extraEnv: { WEB_V1_VIA_NEXT: "1" },
  });
  extra.push(viaNext);
  viaNextPid = viaNext.pid;
  const nextBase = `http://127.0.0.1:${viaNext.port}`;
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
  const stationPath = `/v1/tenants/${tenant}/stations/${station.id}`;
  const withKey = (i: number) => ({ authorization: `Bearer ${keys[i % KEYS]}` });
  // The baseline: the app's cheapest /v1 route, so both sides pay for the router alike.
  const paths = { lean: base, via_next: nextBase };
  /** One slice of the station read on a path, its latencies added to `samples`. */
  const stationRead = (root: string, seconds: number) => (samples: number[]) =>
    runLoad({
      url: `${root}${stationPath}`,
      concurrency: CONCURRENCY,
      seconds,
      headers: withKey,
      samples,
    });
  /** Warms a path's station read up (JIT, connection pools, the key cache). */
  const warmRead = (root: string) =>
    runLoad({ url: `${root}${stationPath}`, concurrency: 4, seconds: 2, headers: withKey });
  // warm up every route on both paths
  for (const root of Object.values(paths)) {
    await runLoad({ url: `${root}/v1`, concurrency: 4, seconds: 2 });
    await warmRead(root);
  }
  const loadAtStart = os.loadavg();
  // The routes and paths take turns in short slices, so a change in the machine's other load
  // during the run falls on all alike.
  const phases = {
    lean: { baseline: newPhase("web"), read: newPhase("web") },
    via_next: { baseline: newPhase("web_via_next"), read: newPhase("web_via_next") },
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, root] of Object.entries(paths) as [keyof typeof paths, string][]) {
      await slice(phases[name].baseline, (samples) =>
        runLoad({
          url: `${root}/v1`,
          concurrency: CONCURRENCY,
          seconds: SECONDS / ROUNDS,
          samples,
        }),
      );
      await slice(phases[name].read, stationRead(root, SECONDS / ROUNDS));
    }
  }
  const loadAtEnd = os.loadavg();
  const result = (name: keyof typeof paths) => {
    const baseline = summary(phases[name].baseline);
    const read = summary(phases[name].read);
    return {
      baseline: { route: "GET /v1", ...baseline },
      get_station: read,
      ratio_rps: round2(read.rps / baseline.rps),
      ratio_p50: round2(read.p50_ms / baseline.p50_ms),
    };
  };
  const lean = result("lean");
  const viaNextResult = result("via_next");
  // Where a read's CPU goes: one more web process per path, profiled under the station read.
  const profiles: Record<string, unknown> = {};
  if (PROFILE) {
    for (const [name, via] of [
      ["lean", "0"],
      ["via_next", "1"],
    ] as const) {
      const profiled = await startWebProcess({
        dataDir: product.dataDir,
        env: product.env,
        extraEnv: { WEB_V1_VIA_NEXT: via },
        nodeArgs: ["--inspect=127.0.0.1:0"],
      });
      extra.push(profiled);
      const url = `http://127.0.0.1:${profiled.port}${stationPath}`;
      await runLoad({ url, concurrency: 4, seconds: 3, headers: withKey });
      const stop = await startProfile(inspectorUrl(profiled.output())!);
      const load = await runLoad({
        url,
        concurrency: CONCURRENCY,
        seconds: SECONDS / 2,
        headers: withKey,
      });
      const summaryOf = summarize(await stop());
      profiles[name] = { route: "GET station", requests: load.requests, ...summaryOf };
      await profiled.stop();
    }
  }
  // The product as `npm start` runs it: its web process alone on the database (the one through
  // Next.js stopped), so its rate-limit counts keep idle keys in memory (server/access/README.md).
  await viaNext.stop();
  // the key cache recounts the listeners on the database every 5 s
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  await warmRead(base);
  const alonePhase = newPhase("web");
  await slice(alonePhase, stationRead(base, SECONDS));
  const alone = summary(alonePhase);
  writeResult("api-read", {
    benchmark: "api-read",
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    load_average_at_end_of_load: loadAtEnd.map(round2),
    concurrency: CONCURRENCY,
    seconds_per_route: SECONDS,
    keys: KEYS,
    // the product's own path (npm start): kept at the top level as before
    ...lean,
    via_next: viaNextResult,
    lean_vs_next: {
      baseline_rps: round2(lean.baseline.rps / viaNextResult.baseline.rps),
      get_station_rps: round2(lean.get_station.rps / viaNextResult.get_station.rps),
      get_station_web_cpu: round2(
        (lean.get_station.cpu_ms_per_request.web ?? 0) /
          (viaNextResult.get_station.cpu_ms_per_request.web ?? 1),
      ),
    },
    // the station read again with the product's web process alone on the database
    alone: { get_station: alone },
    ...(PROFILE ? { profiles } : {}),
  });
} finally {
  for (const process of extra) await process.stop();
  await product.stop();
}
