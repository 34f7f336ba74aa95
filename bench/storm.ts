/**
 * Charger handshakes against the product started as `npm start` does, with chargers as real
 * ocpp-rpc clients in other processes (bench/storm-sim.ts):
 * (a) new chargers at fixed arrival rates (connect, BootNotification, StatusNotification, no
 *     retry): how many are dropped, and connect and boot+status p50/p99;
 * (b) a reconnect storm: N chargers connected and booted, the gateway process killed (SIGKILL) and
 *     started again by `npm start`'s supervisor, and the time until all N are back and booted.
 * Run: `npx tsx bench/storm.ts` (env BENCH_RATES default "50,100,200,300", BENCH_ARRIVAL_SECONDS
 * default 10, BENCH_STORM default 19000). Writes bench/results/storm.json.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loopback, startProduct } from "../e2e/fixtures/product";
import { closeDb, db } from "../server/db";
import { hashPassword } from "../server/lib/passwords";
import { stationVerifier, verifierKey } from "../server/lib/password-verifier";
import { benchLocation, insertBenchStations } from "./bench-stations";
import { latency, machine, round2, writeResult } from "./harness";
import { treeCpuMs } from "./process-cpu";
import { startSimulator } from "./simulator";
import { bootstrapProject } from "./product-project";

const RATES = (process.env.BENCH_RATES ?? "50,100,200,300").split(",").map(Number);
const ARRIVAL_SECONDS = Number(process.env.BENCH_ARRIVAL_SECONDS ?? 10);
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
  const arrivalCounts = RATES.map((rate) => rate * ARRIVAL_SECONDS);
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

  // (a) new chargers at fixed arrival rates
  const arrivals = [];
  let first = 0;
  for (const [i, rate] of RATES.entries()) {
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
    const figures = {
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
  }

  // (b) the reconnect storm
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
  const stormCpu = { gateway: treeCpuMs(gatewayPid()) ?? 0, postgres: treeCpuMs(postgresPid) ?? 0 };
  await Promise.all(sims.map((s) => s.stop()));
  const starts = product.output().match(/ocpp started \(pid/g)?.length ?? 0;
  const storm = {
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
  writeResult("storm", {
    benchmark: "storm",
    date: new Date().toISOString(),
    projects: TENANTS,
    machine: machine(loadAtStart),
    arrivals,
    storm,
  });
} finally {
  await product.stop();
}
