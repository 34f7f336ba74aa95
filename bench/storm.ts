/**
 * Charger handshakes against the product started as `npm start` does, with chargers as real
 * ocpp-rpc clients in other processes (bench/storm-sim.ts):
 * (a) new chargers at fixed arrival rates (connect, BootNotification, StatusNotification, no
 *     retry): how many are dropped, and connect and boot+status p50/p99;
 * (b) a reconnect storm: N chargers connected and booted, the gateway process killed (SIGKILL) and
 *     started again by `npm start`'s supervisor, and the time until all N are back and booted.
 * Each rate runs BENCH_RUNS times (default 3, rates interleaved: 100, 200, 100, 200, …) and
 * reports its runs' spread; the gateway marks each new charger's steps (ocpp/phase-trace.ts) and
 * each run reports where the median charger's time went.
 * Run: `npm run bench -- storm` (env BENCH_RATES default "50,100,200,300", BENCH_ARRIVAL_SECONDS
 * default 10, BENCH_RUNS default 3, BENCH_STORM default 19000, 0 for none). Writes
 * bench/results/storm.json.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loopback, startProduct } from "../e2e/fixtures/product";
import { closeDb, db } from "../server/db";
import { hashPassword } from "../server/lib/passwords";
import { stationVerifier, verifierKey } from "../server/lib/password-verifier";
import { benchLocation, insertBenchStations } from "./bench-stations";
import { latency, machine, percentile, round2, writeResult } from "./harness";
import { treeCpuMs } from "./process-cpu";
import { startSimulator } from "./simulator";
import { bootstrapProject } from "./product-project";

const RATES = (process.env.BENCH_RATES ?? "50,100,200,300").split(",").map(Number);
const ARRIVAL_SECONDS = Number(process.env.BENCH_ARRIVAL_SECONDS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** One process here may hold 20,000 descriptors (`ulimit -Hn`), the gateway's own included. */
const STORM = Number(process.env.BENCH_STORM ?? 19_000);
/** chargers per simulator process */
const PER_SIM = 5_000;
const PASSWORD = "storm-password-000001";
const RETRY = { firstMs: 1_000, maxMs: 15_000 };
/**
 * Projects the chargers are spread over (round-robin). One is an operator's fleet; every event
 * of one project takes its counter row in turn (server/db/README.md), so more projects show
 * what the handshake itself costs.
 */
const TENANTS = Number(process.env.BENCH_TENANTS ?? 1);

const sim = (job: Record<string, unknown>) => startSimulator("bench/storm-sim.ts", job);

const loadAtStart = os.loadavg();
// The gateway's marks of each new charger's steps (ocpp/phase-trace.ts), read after each run.
const traceFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "storm-trace-")), "phases.jsonl");
process.env.OCPP_TRACE_PHASES = traceFile;
const product = await startProduct();
try {
  const tenantId = (await bootstrapProject(product, "Storm")).tenant_id;
  const tenantIds = [tenantId];
  for (let i = 1; i < TENANTS; i++) {
    const team = await db().team.create({ data: { name: `Storm ${i}` } });
    tenantIds.push(
      (await db().tenant.create({ data: { teamId: team.id, name: `Storm ${i}` } })).id,
    );
  }
  const tenants = [];
  for (const id of tenantIds) tenants.push(await benchLocation(db(), id));
  const schedule = Array.from({ length: RUNS }, () => RATES).flat();
  const arrivalCounts = schedule.map((rate) => rate * ARRIVAL_SECONDS);
  const total = arrivalCounts.reduce((a, b) => a + b, 0) + STORM;
  const prefix = `STORM-${Date.now().toString(36)}-`;
  const passwordHash = await hashPassword(PASSWORD);
  const stations = await insertBenchStations(db(), {
    tenants,
    prefix,
    first: 0,
    count: total,
    passwordHash,
  });
  // What setting a password through the API keeps besides its hash: the keyed verifier.
  const key = verifierKey(fs.readFileSync(path.join(product.dataDir, "secret.key"), "utf8").trim());
  const ids = [...stations.values()];
  const verifiers = ids.map((id) => stationVerifier(key, id, passwordHash, Buffer.from(PASSWORD)));
  await db().$executeRaw`
    UPDATE stations SET password_verifier = v.verifier
    FROM unnest(${ids}::int[], ${verifiers}::text[]) AS v(id, verifier)
    WHERE stations.id = v.id`;
  await closeDb();
  const url = `${loopback(product.ocppUrl)}/ocpp`;
  const chargers = { url, prefix, password: PASSWORD };

  // CPU per admitted charger, by process: the gateway, and PostgreSQL (its postmaster's tree).
  const gatewayPid = () =>
    Number([...product.output().matchAll(/ocpp started \(pid (\d+)\)/g)].at(-1)![1]);
  const postgresPid = Number(
    fs
      .readFileSync(path.join(product.dataDir, "postgres", "postmaster.pid"), "utf8")
      .split("\n")[0],
  );
  const cpu = () => ({
    gateway: treeCpuMs(gatewayPid()) ?? 0,
    postgres: treeCpuMs(postgresPid) ?? 0,
  });
  const cpuPerCharger = (
    before: ReturnType<typeof cpu>,
    after: ReturnType<typeof cpu>,
    n: number,
  ) => ({
    gateway_ms: n ? round2((after.gateway - before.gateway) / n) : null,
    postgres_ms: n ? round2((after.postgres - before.postgres) / n) : null,
  });

  async function reconnectStorm() {
    const sims = [];
    for (let from = 0; from < STORM; from += PER_SIM) {
      const count = Math.min(PER_SIM, STORM - from);
      sims.push(sim({ kind: "storm", ...chargers, first: first + from, count, retry: RETRY }));
    }
    const startedAt = Date.now();
    const up = await Promise.all(sims.map((s) => s.next((line) => "back" in line)));
    const initialSeconds = (Math.max(...up.map((l) => l.at as number)) - startedAt) / 1000;
    console.log(JSON.stringify({ storm: STORM, initial_connect_seconds: initialSeconds }));
    await new Promise((r) => setTimeout(r, 5_000));
    const pid = gatewayPid();
    const load = os.loadavg()[0]!;
    const postgresBefore = treeCpuMs(postgresPid) ?? 0;
    const killedAt = Date.now();
    process.kill(pid, "SIGKILL");
    const STORM_LIMIT_MS = 600_000;
    const back = await Promise.race([
      Promise.all(sims.map((s) => s.next((line) => "back" in line))),
      new Promise<null>((r) => setTimeout(() => r(null), STORM_LIMIT_MS).unref()),
    ]);
    // The restarted gateway's whole life so far (start-up included), and PostgreSQL since the kill.
    const stormCpu = {
      gateway: treeCpuMs(gatewayPid()) ?? 0,
      postgres: treeCpuMs(postgresPid) ?? 0,
    };
    await Promise.all(sims.map((s) => s.stop()));
    const starts = product.output().match(/ocpp started \(pid/g)?.length ?? 0;
    return {
      chargers: STORM,
      simulator_processes: sims.length,
      retry: { first_ms: RETRY.firstMs, max_ms: RETRY.maxMs, jitter: "0.5 to 1.5 times" },
      initial_connect_seconds: round2(initialSeconds),
      all_back_seconds_after_kill: back
        ? round2((Math.max(...back.map((l) => l.at as number)) - killedAt) / 1000)
        : null,
      refused_handshakes_by_reason: back?.map((l) => l.refusals) ?? null,
      gateway_restarted: starts >= 2,
      load_average_1m_at_kill: round2(load),
      cpu_per_reconnected_charger: cpuPerCharger(
        { gateway: 0, postgres: postgresBefore },
        stormCpu,
        STORM,
      ),
    };
  }

  // (a) new chargers at fixed arrival rates
  type Arrival = {
    rate_per_second: number;
    dropped: number;
    connect: ReturnType<typeof latency>;
    boot_status: ReturnType<typeof latency>;
    cpu_per_booted_charger: Record<string, number | null>;
    load_average_1m: number;
  } & Record<string, unknown>;
  const arrivals: Arrival[] = [];
  let first = 0;
  let traced = 0; // lines of the trace file already read
  for (const [i, rate] of schedule.entries()) {
    const count = arrivalCounts[i]!;
    const load = os.loadavg()[0]!;
    const cpuBefore = cpu();
    const run = sim({ kind: "arrivals", ...chargers, first, count, rate, timeoutMs: 30_000 });
    const line = await run.next();
    const cpuAfter = cpu();
    await run.exited;
    first += count;
    const connectMs = line.connectMs as number[];
    const bootStatusMs = line.bootStatusMs as number[];
    const dropped = line.dropped as Record<string, number>;
    const figures: Arrival = {
      rate_per_second: rate,
      chargers: count,
      dropped: Object.values(dropped).reduce((a, b) => a + b, 0),
      dropped_by_reason: dropped,
      connect: latency(connectMs),
      boot_status: latency(bootStatusMs),
      cpu_per_booted_charger: {
        ...cpuPerCharger(cpuBefore, cpuAfter, bootStatusMs.length),
        // the load generator's own share of the two cores (its whole life, start-up included)
        simulator_ms: bootStatusMs.length
          ? round2((line.cpuMs as number) / bootStatusMs.length)
          : null,
      },
      seconds: round2(line.seconds as number),
      load_average_1m: round2(load),
    };
    console.log(JSON.stringify(figures));
    arrivals.push(figures);
    await new Promise((r) => setTimeout(r, 3_000)); // their disconnects are recorded
    const lines = fs.existsSync(traceFile)
      ? fs.readFileSync(traceFile, "utf8").split("\n").filter(Boolean)
      : [];
    const phases = phaseBreakdown(lines.slice(traced));
    figures.gateway_phases = phases;
    traced = lines.length;
    console.log(JSON.stringify({ rate, gateway_phases: phases }));
  }
  const spread = RATES.map((rate) => {
    const runs = arrivals.filter((a) => a.rate_per_second === rate);
    const of = (pick: (a: (typeof runs)[number]) => number) => {
      const values = runs.map((a) => round2(pick(a))).sort((a, b) => a - b);
      return {
        min: values[0] ?? null,
        median: values.length ? percentile(values, 50) : null,
        max: values.at(-1) ?? null,
      };
    };
    return {
      rate_per_second: rate,
      runs: runs.length,
      dropped: runs.reduce((n, a) => n + a.dropped, 0),
      connect_p50_ms: of((a) => a.connect.p50_ms),
      boot_status_p50_ms: of((a) => a.boot_status.p50_ms),
      boot_status_p99_ms: of((a) => a.boot_status.p99_ms),
      cpu_per_booted_charger_ms: of(
        (a) =>
          (a.cpu_per_booted_charger.gateway_ms ?? 0) +
          (a.cpu_per_booted_charger.postgres_ms ?? 0) +
          (a.cpu_per_booted_charger.simulator_ms ?? 0),
      ),
      load_average_1m: of((a) => a.load_average_1m),
    };
  });
  console.log(JSON.stringify({ spread }));

  // (b) the reconnect storm
  const storm = STORM > 0 ? await reconnectStorm() : null;
  writeResult("storm", {
    benchmark: "storm",
    date: new Date().toISOString(),
    projects: TENANTS,
    machine: machine(loadAtStart),
    spread,
    arrivals,
    storm,
  });
} finally {
  await product.stop();
}

/**
 * Where the median new charger's time went in the gateway, from its marks (ocpp/phase-trace.ts):
 * each step's median time since the previous one, over the chargers that passed both.
 */
function phaseBreakdown(lines: string[]) {
  const steps: [string, string, string][] = [
    ["gate wait", "handshake", "gate"],
    ["quick check (one query)", "gate", "verified"],
    ["accepted to socket up", "verified", "client"],
    ["connect: waits for its batch", "client", "connected.write"],
    ["connect: its batch's transaction", "connected.write", "connected.commit"],
    [
      "Boot: received to submitted (waits for the connect)",
      "BootNotification.received",
      "BootNotification.submitted",
    ],
    ["Boot: waits for its batch", "BootNotification.submitted", "BootNotification.write"],
    ["Boot: its batch's transaction", "BootNotification.write", "BootNotification.commit"],
    [
      "Boot answered to Status received (charger and sockets)",
      "BootNotification.answered",
      "StatusNotification.received",
    ],
    ["Status: waits for its batch", "StatusNotification.submitted", "StatusNotification.write"],
    ["Status: its batch's transaction", "StatusNotification.write", "StatusNotification.commit"],
    ["socket up to Status answered", "client", "StatusNotification.answered"],
  ];
  const marks = lines.map((line) => JSON.parse(line) as Record<string, number>);
  const out: Record<string, number | null> = {
    chargers: marks.length,
    // whose BootNotification was recorded in its connect's transaction (ocpp/gateway.ts, `ride`)
    boot_rode_with_connect: marks.filter((m) => m["BootNotification.ride"] !== undefined).length,
  };
  for (const [name, from, to] of steps) {
    const values = marks
      .filter((m) => m[from] !== undefined && m[to] !== undefined)
      .map((m) => m[to]! - m[from]!)
      .sort((a, b) => a - b);
    out[`${name} p50_ms`] = values.length ? round2(percentile(values, 50)) : null;
  }
  return out;
}
