/**
 * `npm run bench` lists the benchmarks; `npm run bench -- <name> [args]` runs one in its own
 * process. Each writes bench/results/<name>.json (bench/README.md has the figures).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Each benchmark, what it measures, and how to run it with its settings at their defaults. */
const BENCHMARKS: Record<string, { what: string; run: string }> = {
  "api-read": {
    what: "a station read against GET /v1, on /v1's lean path and through Next.js (BENCH_PROFILE=1: CPU profiles)",
    run: "BENCH_CONCURRENCY=16 BENCH_SECONDS=10 npm run bench -- api-read",
  },
  "api-requests": {
    what: "what counting /v1 requests for team usage costs: per count, req/s with and without, a flush",
    run: "BENCH_SECONDS=2 BENCH_CONCURRENCY=16 npm run bench -- api-requests",
  },
  "bulk-onboarding": {
    what: "a fleet with passwords registered through POST /stations/bulk vs the single routes (sequential and concurrent): stations per second",
    run: "BENCH_STATIONS=3000 npm run bench -- bulk-onboarding",
  },
  pricing: {
    what: "pricing a 24-hour session against a complex tariff (argument: runs)",
    run: "npm run bench -- pricing 300",
  },
  ocpp: {
    what: "one OCPP gateway process under simulated chargers",
    run: "BENCH_CONNECTIONS=1000 BENCH_CONNECT_RATE=150 npm run bench -- ocpp",
  },
  "connection-memory": {
    what: "what one held charger connection costs the gateway in memory, with a heap census",
    run: "BENCH_CONNECTIONS=2000 npm run bench -- connection-memory",
  },
  "scale-out": {
    what: "four gateway processes on one database sharing chargers; commands routed to the right one",
    run: "BENCH_GATEWAYS=4 BENCH_CONNECTIONS=2000 BENCH_COMMANDS=50 npm run bench -- scale-out",
  },
  storm: {
    what: "new chargers per second at fixed arrival rates (each run 3 times, with the spread), and a gateway restart's reconnect storm",
    run: "BENCH_RATES=50,100,200,300 BENCH_RUNS=3 BENCH_STORM=19000 npm run bench -- storm",
  },
  national: {
    what: "a national network: N gateways (npm start's OCPP_PROCESSES) and several simulators on several loopback addresses; connect+boot everyone, heartbeats and memory per connection after GC, MeterValues (persisted/s, p99, meter.sampled within 1 s, database growth), one gateway killed",
    run: "BENCH_CHARGERS=100000 BENCH_GATEWAYS=7 BENCH_SIMULATORS=6 BENCH_CONNECT_RATE=200 BENCH_HEARTBEAT_SECONDS=300 BENCH_METER_EVERY_SECONDS=10 BENCH_METER_SECONDS=60 npm run bench -- national",
  },
  bills: {
    what: "simulated bills created and finalized per second; live pricing per MeterValues",
    run: "BENCH_BILLS=400 BENCH_CONCURRENCY=8 npm run bench -- bills",
  },
  jobs: {
    what: "background jobs claimed and completed per second with 1 and 2 runner processes, and latency",
    run: "BENCH_JOBS=20000 npm run bench -- jobs",
  },
  payments: {
    what: "simulated bills created, authorized, finalized and captured per second; authorize and capture p50/p99 (simulator, and card against the local Stripe fake)",
    run: "BENCH_PAYMENTS=200 BENCH_CONCURRENCY=8 npm run bench -- payments",
  },
  webhooks: {
    what: "webhook deliveries per second and CPU per delivery with 1, 2 and 4 workers, and latency",
    run: "BENCH_DELIVERIES=2000 npm run bench -- webhooks",
  },
  "console-overview": {
    what: "the overview (data and signed-in page) and a 24-hour transaction's page data with 1,000 stations and 100,000 transactions: median and p95",
    run: "BENCH_REQUESTS=50 npm run bench -- console-overview",
  },
  sandbox: {
    what: "sandbox sessions advanced on virtual chargers: advance p50/p99, workspace-log events per second, gateway CPU per virtual charger",
    run: "BENCH_SESSIONS=100 BENCH_RATE=10 BENCH_SECONDS=60 npm run bench -- sandbox",
  },
  "site-limits": {
    what: "a site of 200 chargers under one power limit, sessions starting and stopping at 5/s: change to last affected charger's new profile p50/p99, gateway and database CPU per recomputation",
    run: "BENCH_CHARGERS=200 BENCH_RATE=5 BENCH_SECONDS=60 npm run bench -- site-limits",
  },
};

const dir = import.meta.dirname;
const [name, ...args] = process.argv.slice(2);

if (!name || !(name in BENCHMARKS)) {
  if (name) console.error(`no benchmark named "${name}"\n`);
  console.log("Benchmarks (npm run bench -- <name> [args]; results in bench/results/<name>.json):");
  for (const [bench, { what, run }] of Object.entries(BENCHMARKS))
    console.log(`\n  ${bench}: ${what}\n    ${run}`);
  process.exit(name ? 1 : 0);
}

const file = path.join(dir, `${name}.ts`);
if (!fs.existsSync(file)) throw new Error(`${file} is listed but missing`);
const child = spawn(
  path.join(dir, "..", "node_modules", ".bin", "tsx"),
  ["--conditions=react-server", file, ...args],
  {
    cwd: path.join(dir, ".."), // the benchmarks write bench/results/ relative to the project
    stdio: "inherit",
  },
);
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
