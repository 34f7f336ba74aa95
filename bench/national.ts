/**
 * A national network on one machine (issue 29, points 1, 2, 4 and 6): the product started as
 * `npm start` runs it with OCPP_PROCESSES gateway processes on one port and one database, and
 * chargers in several simulator processes (bench/national-sim.ts), each from loopback source
 * addresses of its own (127.2.x.y, 127.3.x.y, …, 1,000 chargers on each) so no address runs out
 * of ephemeral ports and the kernel's port choice stays cheap, each
 * process under its open-file limit. Phases, each with its figures:
 *  1. connect and boot every charger at a set rate: all connected and booted, time, p50/p99;
 *  2. heartbeats at the set interval: answered, p50/p99; each gateway's memory per connection
 *     after a full GC (over the inspector, which SIGUSR1 opens: its RSS and heap, before the
 *     chargers came and while it holds them);
 *  3. every charger sends StartTransaction at the same instant (the burst): first sent → last
 *     answered, starts/s, CPU per start of the gateways and PostgreSQL; then MeterValues, every
 *     charger every BENCH_METER_EVERY_SECONDS: persisted/s, round trip p50/p99,
 *     each reading's `meter.sampled` event (matched by station and reading time) in the log: its
 *     created_at less the send, p50/p99, and the database's growth per million readings;
 *  4. one gateway SIGKILLed: time until its chargers are all back and booted (the supervisor
 *     starts it again; the kernel spreads the reconnects over every process on the port), and the
 *     other chargers' heartbeat p99 meanwhile against phase 2's.
 * CPU per phase by process (each gateway by name and pid, web, PostgreSQL, the simulators) from
 * /proc; a killed gateway's time is reaped into `npm start`'s (under "web and npm start").
 * Run: `npm run bench -- national` (env BENCH_CHARGERS default 100000, BENCH_GATEWAYS default
 * chargers/19,000 rounded up plus one, BENCH_SIMULATORS default chargers/19,000 rounded up,
 * BENCH_CONNECT_RATE default 200 a second, BENCH_HEARTBEAT_SECONDS default 300,
 * BENCH_HOLD_SECONDS default 1.2 heartbeat intervals, BENCH_METER_EVERY_SECONDS default 10,
 * BENCH_METER_SECONDS default 60, BENCH_START_SPREAD_SECONDS default the meter period, 0 for every start at the same instant,
 * BENCH_METER_CHARGERS default all: how many chargers take part in phase 3, BENCH_STOP_AFTER
 * default 4: the last phase to run, BENCH_OBSERVERS default 1000 and BENCH_OBSERVER_HEARTBEAT_SECONDS
 * default 5: chargers in a simulator of their own, connected after phase 1, that only send
 * heartbeats (a light load generator, so their round trips are the product's): phase 2's and the
 * minute before the kill are their quiet figures, the storm after the kill their busy one,
 * those on the killed gateway left out, BENCH_PG_STATEMENTS=1: PostgreSQL started with
 * pg_stat_statements, each phase's costliest statements in its figures, and phase 1 sampled every
 * BENCH_SAMPLE_SECONDS (default 30): chargers online, CPU per process and PostgreSQL's by kind of
 * process, its costliest statements, so the cost of a new charger can be followed as the network
 * grows, BENCH_SIMULATOR_NICE default 0: the chargers' simulators' nice value (not the
 * observers'), so the load generator's work yields the cores to the product's and the observers'
 * as chargers' own processors would not take them). Writes bench/results/national.json.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { loopback, startProduct } from "../e2e/fixtures/product";
import { closeDb, db } from "../server/db";
import { stationVerifier, verifierKey } from "../server/lib/password-verifier";
import { benchLocation, cheapPasswordHash, insertBenchStations } from "./bench-stations";
import { latency, machine, round2, writeResult } from "./harness";
import { cpuMsByProcess } from "./process-cpu";
import { startSimulator, type Line } from "./simulator";
import { startProfile, summarize } from "./cpu-profile";
import { bootstrapProject } from "./product-project";

const CHARGERS = Number(process.env.BENCH_CHARGERS ?? 100_000);
/** what one process may hold here: 20,000 descriptors (`ulimit -Hn`), less its own files */
const PER_PROCESS = 19_000;
const GATEWAYS = Number(process.env.BENCH_GATEWAYS ?? Math.ceil(CHARGERS / PER_PROCESS) + 1);
const SIMULATORS = Number(process.env.BENCH_SIMULATORS ?? Math.ceil(CHARGERS / PER_PROCESS));
const RATE = Number(process.env.BENCH_CONNECT_RATE ?? 200);
const HEARTBEAT_S = Number(process.env.BENCH_HEARTBEAT_SECONDS ?? 300);
const HOLD_S = Number(process.env.BENCH_HOLD_SECONDS ?? Math.ceil(HEARTBEAT_S * 1.2));
const METER_EVERY_S = Number(process.env.BENCH_METER_EVERY_SECONDS ?? 10);
const METER_S = Number(process.env.BENCH_METER_SECONDS ?? 60);
/** the transactions start over this many seconds (their StartTransactions at chargers/this a second) */
const START_S = Number(process.env.BENCH_START_SPREAD_SECONDS ?? METER_EVERY_S);
/** how many chargers take part in phase 3 (the first of each simulator's share; default all) */
const METER_CHARGERS = Math.min(CHARGERS, Number(process.env.BENCH_METER_CHARGERS ?? CHARGERS));
const STORM_LIMIT_S = 600;
/**
 * BENCH_PROFILE=1: a CPU profile of the second gateway (one not killed) over phase 3's steady state,
 * and again from the kill until the killed one's chargers are back (cpu-profile.ts)
 */
const PROFILE = process.env.BENCH_PROFILE === "1";
const PASSWORD = "national-password-01";
/** the last phase to run (1 to 4): a partial run writes what it measured */
const STOP_AFTER = Number(process.env.BENCH_STOP_AFTER ?? 4);
/** PostgreSQL started with pg_stat_statements: each phase's costliest statements */
const PG_STATEMENTS = process.env.BENCH_PG_STATEMENTS === "1";
const SAMPLE_S = Number(process.env.BENCH_SAMPLE_SECONDS ?? 30);
const OBSERVERS = Number(process.env.BENCH_OBSERVERS ?? 1000);
const OBSERVER_HEARTBEAT_S = Number(process.env.BENCH_OBSERVER_HEARTBEAT_SECONDS ?? 5);
/** the chargers' simulators' scheduling priority (not the observers'): 0, or up to 19 (lowest) */
const SIMULATOR_NICE = Number(process.env.BENCH_SIMULATOR_NICE ?? 0);

type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number };
const mb = (m: Memory) =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, round2(v / 2 ** 20)]));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const loadAtStart = os.loadavg();
const load = () => round2(os.loadavg()[0]!);

if (Math.ceil(CHARGERS / SIMULATORS) > PER_PROCESS)
  throw new Error(
    `${SIMULATORS} simulators cannot hold ${CHARGERS} chargers (${PER_PROCESS} each)`,
  );

const product = await startProduct({
  extraEnv: {
    OCPP_PROCESSES: String(GATEWAYS),
    ...(PG_STATEMENTS
      ? { EMBEDDED_POSTGRES_SETTINGS: "shared_preload_libraries=pg_stat_statements" }
      : {}),
  },
});
const sims: ReturnType<typeof startSimulator>[] = [];
const observers: ReturnType<typeof startSimulator>[] = [];
const samplesDir = fs.mkdtempSync(path.join(os.tmpdir(), "national-"));
try {
  /** each gateway's latest pid, by its name in `npm start`'s log (ocpp1 … ocppN) */
  const gatewayPids = () => {
    const pids = new Map<string, number>();
    for (const m of product.output().matchAll(/^(ocpp\d*) started \(pid (\d+)\)/gm))
      pids.set(m[1]!, Number(m[2]));
    return pids;
  };
  const postgresPid = Number(
    fs
      .readFileSync(path.join(product.dataDir, "postgres", "postmaster.pid"), "utf8")
      .split("\n")[0],
  );
  const cpu = () =>
    cpuMsByProcess((pid, commandLine) => {
      for (const [name, gpid] of gatewayPids()) if (gpid === pid) return `${name} (pid ${pid})`;
      if (commandLine.includes("national-sim")) return "simulators";
      if (commandLine.includes("postgres") || pid === postgresPid) return "postgres";
      if (commandLine.includes("ocpp/main.ts")) return "gateway (other)";
      if (pid === process.pid) return "benchmark";
      return "web and npm start";
    }) ?? {};
  /** PostgreSQL's CPU by kind of process (a backend that exited is in the postmaster's reaped time) */
  const postgresCpu = () => {
    const kinds =
      cpuMsByProcess((pid, commandLine) => {
        if (pid === postgresPid) return "postmaster (and exited backends)";
        if (!commandLine.startsWith("postgres:")) return "not postgres";
        if (commandLine.includes("autovacuum")) return "autovacuum";
        if (/walwriter|checkpointer|background writer|walsummarizer/.test(commandLine))
          return "wal, checkpoints, writer";
        if (/^postgres: \S+ \S+ \d/.test(commandLine)) return "client backends";
        return "other postgres";
      }) ?? {};
    delete kinds["not postgres"];
    return kinds;
  };
  const cpuDelta = (a: Record<string, number>, b: Record<string, number>, seconds: number) =>
    Object.fromEntries(
      Object.keys(b).map((k) => [
        k,
        {
          cpu_s: round2((b[k]! - (a[k] ?? 0)) / 1000),
          cores: round2((b[k]! - (a[k] ?? 0)) / 1000 / seconds),
        },
      ]),
    );

  const boot = await bootstrapProject(product, "National");
  if (PG_STATEMENTS)
    await db().$executeRawUnsafe("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  const result: Record<string, unknown> = {
    benchmark: "national",
    date: new Date().toISOString(),
    machine: { ...machine(loadAtStart), open_file_limit_hard: hardOpenFileLimit() },
    gateways: GATEWAYS,
    chargers: CHARGERS,
    stopped_after_phase: STOP_AFTER,
    simulator_nice: SIMULATOR_NICE,
  };
  const location = await benchLocation(db(), boot.tenant_id);
  const passwordHash = cheapPasswordHash(PASSWORD);
  const prefix = `NAT-${Date.now().toString(36)}-`;
  const ids = await insertBenchStations(db(), {
    tenants: [location],
    prefix,
    first: 0,
    count: CHARGERS + OBSERVERS,
    passwordHash,
  });
  // What registering through the API (or the bulk route) keeps besides the hash: the keyed
  // verifier, which lets a charger's handshake skip scrypt (as bench/storm.ts sets it).
  const key = verifierKey(fs.readFileSync(path.join(product.dataDir, "secret.key"), "utf8").trim());
  const stationIds = [...ids.values()];
  const verifiers = stationIds.map((id) =>
    stationVerifier(key, id, passwordHash, Buffer.from(PASSWORD)),
  );
  await db().$executeRaw`
    UPDATE stations SET password_verifier = v.verifier
    FROM unnest(${stationIds}::int[], ${verifiers}::text[]) AS v(id, verifier)
    WHERE stations.id = v.id`;
  const url = `${loopback(product.ocppUrl)}/ocpp`;

  // Each gateway idle, after GC, before any charger.
  await sleep(3_000);
  const idle = new Map<string, Memory | null>();
  const idleFiles = new Map<string, number>();
  for (const [name, pid] of gatewayPids()) {
    idle.set(name, await memoryAfterGc(pid));
    idleFiles.set(name, openFiles(pid));
  }

  phases: {
    // 1. connect and boot everyone
    const per = Math.ceil(CHARGERS / SIMULATORS);
    const phase1Cpu = cpu();
    const phase1Load = load();
    const connectStart = Date.now();
    for (let s = 0, first = 0; first < CHARGERS; s++, first += per) {
      const count = Math.min(per, CHARGERS - first);
      sims.push(
        startSimulator("bench/national-sim.ts", {
          url,
          prefix,
          first,
          count,
          password: PASSWORD,
          rate: (RATE * count) / CHARGERS,
          sourceNet: `127.${2 + s}`,
          heartbeatMs: HEARTBEAT_S * 1000,
          samplesFile: path.join(samplesDir, `samples-${s}.csv`),
          ...(SIMULATOR_NICE ? { nice: SIMULATOR_NICE } : {}),
        }),
      );
    }
    const upsDone = Promise.all(sims.map((s) => s.next((l) => "up" in l)));
    const samples: unknown[] = [];
    let sampling = true;
    void upsDone.finally(() => (sampling = false));
    const sampler = (async () => {
      if (!PG_STATEMENTS) return;
      await statementsReset();
      let [at, cpuAt, pgAt, onlineAt, sessionsAt] = [
        Date.now(),
        cpu(),
        postgresCpu(),
        0,
        await sessionCount(),
      ];
      while (sampling) {
        await Promise.race([sleep(SAMPLE_S * 1000), upsDone]);
        const [now, cpuNow, pgNow] = [Date.now(), cpu(), postgresCpu()];
        const online = await onlineCount(prefix);
        const sessionsNow = await sessionCount();
        const seconds = (now - at) / 1000;
        const added = online - onlineAt;
        const cpuUse = cpuDelta(cpuAt, cpuNow, seconds);
        samples.push({
          at_s: round2((now - connectStart) / 1000),
          online,
          online_added_per_second: round2(added / seconds),
          load_average_1m: load(),
          // CPU per charger brought online in this interval (every process; heartbeats included)
          cpu_ms_per_new_charger: added > 0 ? perMessage(cpuUse, added) : null,
          cpu: cpuUse,
          postgres_cpu_by_kind: cpuDelta(pgAt, pgNow, seconds),
          // PostgreSQL sessions opened in the interval (a pool closing idle connections and
          // opening new ones pays a fork, a password exchange and cold caches each time)
          sessions_opened: sessionsNow - sessionsAt,
          statements: await topStatements(8),
        });
        [at, cpuAt, pgAt, onlineAt, sessionsAt] = [now, cpuNow, pgNow, online, sessionsNow];
        await statementsReset();
      }
    })();
    const ups = await upsDone;
    await sampler;
    const connectSeconds = (Math.max(...ups.map((l) => l.at as number)) - connectStart) / 1000;
    const booted = await db().$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM stations WHERE name LIKE ${prefix + "%"} AND gateway_id IS NOT NULL`;
    const phase1 = {
      chargers: CHARGERS,
      simulator_processes: sims.length,
      // each simulator's source addresses: 127.<s+2>.x.y, 1,000 chargers on each (national-sim.ts)
      source_networks: sims.map((_, s) => `127.${2 + s}.0.0/16`),
      rate_per_second: RATE,
      all_up_seconds: round2(connectSeconds),
      recorded_online_in_db: Number(booted[0]!.n),
      retries: ups.reduce((n, l) => n + (l.retries as number), 0),
      per_simulator: ups.map((l) => ({
        connect: l.connect,
        boot_status: l.boot_status,
        retries_by_reason: l.retries_by_reason,
      })),
      load_average_1m: { start: phase1Load, end: load() },
      cpu: cpuDelta(phase1Cpu, cpu(), connectSeconds),
      samples: PG_STATEMENTS ? samples : undefined,
    };
    console.log(JSON.stringify({ phase1 }));
    result.connect_and_boot = phase1;
    if (STOP_AFTER <= 1) break phases;

    // the observers: heartbeats only, from a process of their own
    const observer = OBSERVERS
      ? startSimulator("bench/national-sim.ts", {
          url,
          prefix,
          first: CHARGERS,
          count: OBSERVERS,
          password: PASSWORD,
          rate: 100,
          sourceNet: `127.${2 + sims.length}`,
          heartbeatMs: OBSERVER_HEARTBEAT_S * 1000,
          samplesFile: path.join(samplesDir, "observers.csv"),
        })
      : null;
    if (observer) {
      observers.push(observer);
      await observer.next((l) => "up" in l);
    }
    /** `from` (epoch ms): the p99 per 5 s window from then too, and past the first window */
    const observed = async (from?: number) => {
      if (!observer) return null;
      observer.send("report");
      const line = await observer.next((l) => "report" in l);
      const result = { ...beats([line]), chargers_left_out: line.dropped_chargers as number };
      if (from === undefined) return result;
      const kept = line.kept as number[];
      const at = line.kept_at as number[];
      const windows: number[][] = [];
      kept.forEach((ms, k) => (windows[Math.floor((at[k]! - from) / 5_000)] ??= []).push(ms));
      return {
        ...result,
        p99_ms_by_5s: [...windows].map((w) => (w ? latency(w).p99_ms : null)),
        after_first_5s: latency(kept.filter((_, k) => at[k]! - from >= 5_000)),
      };
    };

    // 2. heartbeats held; then each gateway's memory per connection after GC
    const report = async () => {
      sims.forEach((s) => s.send("report"));
      return Promise.all(sims.map((s) => s.next((l) => "report" in l)));
    };
    const beats = (lines: Line[]) => ({
      answered: lines.reduce((n, l) => n + (l.kept as number[]).length, 0),
      errors: lines.reduce((n, l) => n + (l.errors as number), 0),
      ...latency(lines.flatMap((l) => l.kept as number[])),
      // each simulator's own event-loop delay over the same time (ms): part of every round trip
      // above, the load generator's and not the product's
      simulator_loop_delay_ms: lines.map((l) => l.loop_delay_ms),
    });
    sims.forEach((s) => s.send("mark"));
    observer?.send("mark");
    await statementsReset();
    const phase2Cpu = cpu();
    const phase2PgCpu = postgresCpu();
    const phase2Load = load();
    await sleep(HOLD_S * 1000);
    const held = await report();
    const observersQuiet = await observed();
    const phase2Heartbeats = beats(held);
    const phase2CpuEnd = cpu();
    const memory: Record<string, unknown> = {};
    for (const [name, pid] of gatewayPids()) {
      const files = openFiles(pid);
      const sockets = files - (idleFiles.get(name) ?? 0);
      const after = await memoryAfterGc(pid);
      const before = idle.get(name);
      memory[name] = {
        pid,
        open_files: files,
        open_file_limit: openFileLimit(pid),
        sockets_over_idle: sockets,
        idle_mb: before && mb(before),
        held_mb: after && mb(after),
        kib_per_connection:
          before && after && sockets > 0
            ? {
                rss: round2((after.rss - before.rss) / 1024 / sockets),
                heap_used: round2((after.heapUsed - before.heapUsed) / 1024 / sockets),
              }
            : null,
      };
    }
    const phase2 = {
      heartbeat_interval_s: HEARTBEAT_S,
      held_s: HOLD_S,
      heartbeats: phase2Heartbeats,
      observers: observersQuiet && {
        chargers: OBSERVERS,
        heartbeat_interval_s: OBSERVER_HEARTBEAT_S,
        ...observersQuiet,
      },
      chargers_dropped: held.reduce((n, l) => n + (l.dropped_chargers as number), 0),
      gateways: memory,
      load_average_1m: { start: phase2Load, end: load() },
      cpu: cpuDelta(phase2Cpu, phase2CpuEnd, HOLD_S),
      postgres_cpu_by_kind: cpuDelta(phase2PgCpu, postgresCpu(), HOLD_S),
      statements: await topStatements(12),
    };
    console.log(JSON.stringify({ phase2 }));
    result.heartbeats_and_memory = phase2;
    if (STOP_AFTER <= 2) break phases;

    // 3. MeterValues from every charger every METER_EVERY_S
    const size = async () =>
      Number(
        (
          await db().$queryRaw<{ n: bigint }[]>`SELECT pg_database_size(current_database()) AS n`
        )[0]!.n,
      );
    const countRows = async () =>
      Number(
        (await db().$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM meter_samples`)[0]!.n,
      );
    const tableSizes = async () =>
      new Map(
        (
          await db().$queryRaw<{ name: string; bytes: bigint }[]>`
          SELECT regexp_replace(c.relname, '_(p[0-9]+|default)$', '') AS name,
                 sum(pg_total_relation_size(c.oid))::bigint AS bytes
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE c.relkind = 'r' AND n.nspname = 'public' GROUP BY 1`
        ).map((t) => [t.name, Number(t.bytes)]),
      );
    const tablesBefore = await tableSizes();
    const sizeBefore = await size();
    const rowsBefore = await countRows();
    const statsBefore = await postgresCounts();
    await statementsReset();
    const phase3Cpu = cpu();
    const phase3PgCpu = postgresCpu();
    const phase3Load = load();
    const meterStart = new Date();
    const meterPer = Math.ceil(METER_CHARGERS / sims.length);
    sims.forEach((s) => s.send(`meter ${METER_EVERY_S} ${METER_S} ${START_S} ${meterPer}`));
    const startLines = await Promise.all(sims.map((s) => s.next((l) => "started" in l)));
    const startsCpuEnd = cpu();
    const startsLoad = load();
    const readingsStart = Date.now();
    // the steady state: the readings (which begin once every start is answered) from a third of
    // their time or a period, whichever is later, to a period before their end: CPU and rows
    // persisted there, so per MeterValues alone
    const steady = (async () => {
      const to = METER_S - METER_EVERY_S;
      await sleep(readingsStart + Math.max(METER_S / 3, METER_EVERY_S) * 1000 - Date.now());
      for (;;) {
        const [open] = await db().$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM transactions
         WHERE tenant_id = ${boot.tenant_id} AND created_at >= ${meterStart}`;
        if (Number(open!.n) >= METER_CHARGERS * 0.99) break;
        if (Date.now() > readingsStart + (to - 3) * 1000) return null;
        await sleep(500);
      }
      const from = (Date.now() - readingsStart) / 1000;
      const [cpuFrom, rowsFrom, statsFrom] = [cpu(), await countRows(), await postgresCounts()];
      const loadFrom = load();
      // the second gateway, which phase 4 does not kill and profiles again (one inspector port)
      const profiled = PROFILE ? await profileOf([...gatewayPids().values()][1]!) : null;
      await sleep(readingsStart + to * 1000 - Date.now());
      const [cpuTo, rowsTo, statsTo] = [cpu(), await countRows(), await postgresCounts()];
      const gatewayProfile = profiled ? summarize(await profiled()) : null;
      const rows = rowsTo - rowsFrom;
      const cpuUse = cpuDelta(cpuFrom, cpuTo, to - from);
      return {
        from_s: round2(from),
        to_s: round2(to),
        meter_sample_rows_added: rows,
        persisted_per_second: round2(rows / (to - from)),
        load_average_1m: { start: loadFrom, end: load() },
        cpu: cpuUse,
        cpu_ms_per_message: perMessage(cpuUse, rows),
        postgres_per_message: perMessageCounts(statsFrom, statsTo, rows),
        gateway_cpu_profile: gatewayProfile,
      };
    })();
    const meterLines = await Promise.all(sims.map((s) => s.next((l) => "meter" in l)));
    const phase3CpuEnd = cpu();
    const meterSeconds = (Date.now() - meterStart.getTime()) / 1000;
    await sleep(3_000);
    const statsAfter = await postgresCounts();
    await db().$executeRawUnsafe("CHECKPOINT");
    const sizeAfter = await size();
    const tablesAfter = await tableSizes();
    const rowsAfter = await countRows();
    const messages = meterLines.reduce((n, l) => n + (l.messages as number), 0);
    const nameOf = new Map([...ids].map(([name, id]) => [id, name]));
    const events = await db().$queryRaw<
      { station_id: number; occurred_at: Date; created_at: Date }[]
    >`
    SELECT station_id, occurred_at, created_at FROM events
    WHERE tenant_id = ${boot.tenant_id} AND type = 'meter.sampled' AND created_at >= ${meterStart}`;
    const eventAt = new Map(
      events.map((e) => [
        `${nameOf.get(e.station_id)},${e.occurred_at.getTime()}`,
        e.created_at.getTime(),
      ]),
    );
    const lags: number[] = [];
    let expected = 0;
    for (const file of fs.readdirSync(samplesDir)) {
      for (const row of fs.readFileSync(path.join(samplesDir, file), "utf8").split("\n")) {
        if (!row) continue;
        const [name, reading, sent] = row.split(",");
        expected++;
        const at = eventAt.get(`${name},${reading}`);
        if (at !== undefined) lags.push(at - Number(sent));
      }
    }
    const startsOf = startLines.map(
      (l) => l.starts as { first_sent: number; last_answered: number; answered: number },
    );
    const startsAnswered = startsOf.reduce((n, s) => n + s.answered, 0);
    const startsSeconds =
      (Math.max(...startsOf.map((s) => s.last_answered)) -
        Math.min(...startsOf.map((s) => s.first_sent))) /
      1000;
    const startsCpu = cpuDelta(phase3Cpu, startsCpuEnd, startsSeconds);
    const cpuMsOf = (names: (k: string) => boolean) =>
      Object.entries(startsCpu)
        .filter(([k]) => names(k))
        .reduce((ms, [, v]) => ms + v.cpu_s * 1000, 0);
    const phase3 = {
      chargers: Math.min(CHARGERS, meterPer * sims.length),
      every_s: METER_EVERY_S,
      seconds: METER_S,
      starts_spread_s: START_S,
      // the transactions' starts (over `starts_spread_s`; 0: all at the same instant, the burst):
      // first sent → last answered, over all simulators, and the rate
      starts: {
        answered: startsAnswered,
        seconds: round2(startsSeconds),
        per_second: startsSeconds > 0 ? round2(startsAnswered / startsSeconds) : null,
        // CPU from the burst's start to its last answer (every process), and per start: the
        // gateways' and PostgreSQL's
        cpu_ms_per_start: startsAnswered
          ? {
              gateways: round2(cpuMsOf((k) => k.startsWith("ocpp")) / startsAnswered),
              postgres: round2(cpuMsOf((k) => k === "postgres") / startsAnswered),
            }
          : null,
        load_average_1m: { start: phase3Load, end: startsLoad },
        cpu: startsCpu,
      },
      messages_answered: messages,
      errors: meterLines.map((l) => l.errors),
      // the readings start over the first period (after the starts): at full rate after it
      persisted_per_second: round2(messages / (METER_S - METER_EVERY_S)),
      meter_sample_rows_added: rowsAfter - rowsBefore,
      round_trip: latency(meterLines.flatMap((l) => l.latencies as number[])),
      meter_sampled_events: {
        // every reading is 10 s after its charger's last one or more, so each one is due an event
        // when every_s >= 10 (the spec: at most one per transaction every 10 s)
        readings_due_an_event: METER_EVERY_S >= 10 ? expected : null,
        found: lags.length,
        send_to_created_at: latency(lags),
        within_1s: lags.filter((ms) => ms <= 1000).length,
      },
      database_size: {
        before_mb: round2(sizeBefore / 2 ** 20),
        after_mb: round2(sizeAfter / 2 ** 20),
        growth_mb_per_million_readings: messages
          ? round2(((sizeAfter - sizeBefore) / 2 ** 20 / messages) * 1e6)
          : null,
        // by table (its partitions, indexes and TOAST together), bytes per reading
        bytes_per_reading_by_table: messages
          ? Object.fromEntries(
              [...tablesAfter]
                .map(([k, v]) => [k, Math.round((v - (tablesBefore.get(k) ?? 0)) / messages)])
                .filter(([, v]) => v !== 0),
            )
          : null,
      },
      load_average_1m: { start: phase3Load, end: load() },
      cpu: cpuDelta(phase3Cpu, phase3CpuEnd, meterSeconds),
      // CPU per MeterValues answered (the phase's StartTransactions and heartbeats included): the
      // figure that holds when other work shares the cores
      cpu_ms_per_message: perMessage(cpuDelta(phase3Cpu, phase3CpuEnd, meterSeconds), messages),
      // PostgreSQL's own counters over the phase (pg_stat_database, pg_stat_user_tables), per message
      postgres_per_message: perMessageCounts(statsBefore, statsAfter, messages),
      steady_state: await steady,
      postgres_cpu_by_kind: cpuDelta(phase3PgCpu, postgresCpu(), meterSeconds),
      statements: await topStatements(12),
    };
    console.log(JSON.stringify({ phase3 }));
    result.meter_values = phase3;
    if (STOP_AFTER <= 3) break phases;
    await closeDb();

    // 4. one gateway SIGKILLed; the observers' minute before it
    observer?.send("mark");
    await sleep(observer ? 60_000 : 0);
    const observersBefore = await observed();
    sims.forEach((s) => s.send("mark"));
    observer?.send("mark");
    const victim = [...gatewayPids()][0]!;
    // BENCH_PROFILE=1: a gateway that is not killed, from just before the kill until all are back
    const stormProfiled = PROFILE ? await profileOf([...gatewayPids().values()][1]!) : null;
    const phase4Cpu = cpu();
    const killLoad = load();
    const killedAt = Date.now();
    process.kill(victim[1], "SIGKILL");
    let backSeconds: number | null = null;
    let droppedChargers = 0;
    for (;;) {
      await sleep(1_000);
      sims.forEach((s) => s.send("status"));
      const status = await Promise.all(sims.map((s) => s.next((l) => "status" in l)));
      droppedChargers = status.reduce((n, l) => n + (l.dropped as number), 0);
      const downNow = status.reduce((n, l) => n + (l.down as number), 0);
      if (droppedChargers > 0 && downNow === 0) {
        const at = Math.max(
          ...status.filter((l) => (l.dropped as number) > 0).map((l) => l.back_at as number),
        );
        backSeconds = round2((at - killedAt) / 1000);
        break;
      }
      if (Date.now() - killedAt > STORM_LIMIT_S * 1000) break;
    }
    const stormProfile = stormProfiled ? summarize(await stormProfiled()) : null;
    // the observers from the kill until the last charger was back (their dropped ones left out)
    const observersDuring = await observed(killedAt);
    // the others' heartbeats over at least one interval from the kill
    await sleep(killedAt + HEARTBEAT_S * 1000 - Date.now());
    const during = beats(await report());
    const phase4Seconds = (Date.now() - killedAt) / 1000;
    const phase4 = {
      killed: { name: victim[0], pid: victim[1] },
      restarted: gatewayPids().get(victim[0]) !== victim[1],
      chargers_dropped: droppedChargers,
      all_back_and_booted_seconds_after_kill: backSeconds,
      ...(stormProfile ? { other_gateway_cpu_profile: stormProfile } : {}),
      others_heartbeats: {
        before: phase2Heartbeats,
        during,
        p99_ratio: round2(during.p99_ms / phase2Heartbeats.p99_ms),
      },
      observers: observersBefore &&
        observersDuring && {
          chargers: OBSERVERS,
          heartbeat_interval_s: OBSERVER_HEARTBEAT_S,
          quiet: observersQuiet,
          minute_before_kill: observersBefore,
          kill_to_all_back: observersDuring,
          p99_ratio_to_minute_before: round2(observersDuring.p99_ms / observersBefore.p99_ms),
          p99_ratio_to_quiet:
            observersQuiet && round2(observersDuring.p99_ms / observersQuiet.p99_ms),
        },
      load_average_1m: { at_kill: killLoad, end: load() },
      cpu: cpuDelta(phase4Cpu, cpu(), phase4Seconds),
    };
    console.log(JSON.stringify({ phase4 }));

    result.gateway_killed = phase4;
  } // phases
  // what the product logged as errors over the run (the first 20 distinct lines), for the causes
  // of refused calls
  result.errors_logged = [
    ...new Set(
      product
        .output()
        .split("\n")
        .filter((line) => /error/i.test(line)),
    ),
  ].slice(0, 20);
  writeResult("national", result);
} finally {
  await Promise.all([...sims, ...observers].map((s) => s.stop()));
  await closeDb();
  await product.stop();
  fs.rmSync(samplesDir, { recursive: true, force: true });
}

/** CPU ms per message: the gateways', PostgreSQL's and the simulators' and their sum. */
function perMessage(cpu: Record<string, { cpu_s: number }>, messages: number) {
  if (!messages) return null;
  const ms = (names: string[]) =>
    round2((names.reduce((n, k) => n + (cpu[k]?.cpu_s ?? 0), 0) * 1000) / messages);
  const gateways = Object.keys(cpu).filter((k) => k.startsWith("ocpp") || k.startsWith("gateway"));
  return {
    gateways: ms(gateways),
    postgres: ms(["postgres"]),
    simulators: ms(["simulators"]),
    total: ms([...gateways, "postgres", "simulators"]),
  };
}

/** The counters' growth per message, those that moved. */
function perMessageCounts(
  before: Record<string, number>,
  after: Record<string, number>,
  messages: number,
) {
  return Object.fromEntries(
    Object.entries(after)
      .filter(([k, v]) => v !== (before[k] ?? 0))
      .map(([k, v]) => [k, messages ? round2((v - (before[k] ?? 0)) / messages) : null]),
  );
}

/** Transactions and rows written, from PostgreSQL's statistics (the tables' by parent name). */
async function postgresCounts(): Promise<Record<string, number>> {
  await db().$executeRawUnsafe("SELECT pg_stat_force_next_flush()");
  const [d] = await db().$queryRaw<
    { commits: bigint; inserted: bigint; updated: bigint; returned: bigint; fetched: bigint }[]
  >`
    SELECT xact_commit AS commits, tup_inserted AS inserted, tup_updated AS updated,
           tup_returned AS returned, tup_fetched AS fetched
      FROM pg_stat_database WHERE datname = current_database()`;
  const tables = await db().$queryRaw<{ name: string; ins: bigint; upd: bigint; hot: bigint }[]>`
    SELECT regexp_replace(relname, '_(p[0-9]+|default)$', '') AS name, sum(n_tup_ins)::bigint AS ins,
           sum(n_tup_upd)::bigint AS upd, sum(n_tup_hot_upd)::bigint AS hot
      FROM pg_stat_user_tables GROUP BY 1`;
  const counts: Record<string, number> = {};
  for (const [k, v] of Object.entries(d!)) counts[k] = Number(v);
  for (const t of tables) {
    if (Number(t.ins)) counts[`${t.name} inserted`] = Number(t.ins);
    if (Number(t.upd)) counts[`${t.name} updated`] = Number(t.upd);
    if (Number(t.hot)) counts[`${t.name} updated (HOT)`] = Number(t.hot);
  }
  return counts;
}

/** Starts a CPU profile of a process over its inspector (SIGUSR1 opens it on 127.0.0.1:9229). */
async function profileOf(pid: number) {
  process.kill(pid, "SIGUSR1");
  for (let i = 0; i < 50; i++) {
    await sleep(100);
    try {
      const list = (await (await fetch("http://127.0.0.1:9229/json/list")).json()) as {
        webSocketDebuggerUrl: string;
      }[];
      if (list[0]) return startProfile(list[0].webSocketDebuggerUrl);
    } catch {
      /* not listening yet */
    }
  }
  return null;
}

function openFiles(pid: number) {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}
function openFileLimit(pid: number) {
  return Number(/Max open files\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/limits`, "utf8"))?.[1]);
}
function hardOpenFileLimit() {
  return Number(
    /Max open files\s+\d+\s+(\d+)/.exec(fs.readFileSync("/proc/self/limits", "utf8"))?.[1],
  );
}

/**
 * A gateway's memory after a full GC: SIGUSR1 opens its inspector (on 127.0.0.1:9229), which
 * collects garbage and reads `process.memoryUsage()`, then closes again so the next gateway can
 * take the port. Null when the inspector could not be reached (the port held by another process).
 */
async function memoryAfterGc(pid: number): Promise<Memory | null> {
  process.kill(pid, "SIGUSR1");
  let target: string | undefined;
  for (let i = 0; i < 50 && !target; i++) {
    await sleep(100);
    try {
      const list = (await (await fetch("http://127.0.0.1:9229/json/list")).json()) as {
        webSocketDebuggerUrl: string;
      }[];
      target = list[0]?.webSocketDebuggerUrl;
    } catch {
      /* not listening yet */
    }
  }
  if (!target) return null;
  const ws = new WebSocket(target);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let nextId = 0;
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = ++nextId;
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse((data as Buffer).toString("utf8")) as {
          id?: number;
          result?: unknown;
        };
        if (message.id !== id) return;
        ws.off("message", onMessage);
        resolve((message.result ?? {}) as Record<string, unknown>);
      };
      ws.on("message", onMessage);
      ws.send(JSON.stringify({ id, method, params }));
    });
  const evaluate = async (expression: string) =>
    (
      (await send("Runtime.evaluate", { expression, returnByValue: true })).result as {
        value: unknown;
      }
    ).value;
  const ownPid = await evaluate("process.pid");
  if (ownPid !== pid) {
    ws.close();
    return null; // someone else's inspector on the port
  }
  await send("HeapProfiler.collectGarbage");
  await send("HeapProfiler.collectGarbage");
  const m = JSON.parse(String(await evaluate("JSON.stringify(process.memoryUsage())"))) as Memory;
  void send("Runtime.evaluate", { expression: "process._debugEnd()" });
  await sleep(300);
  ws.close();
  await sleep(500);
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
}

async function onlineCount(prefix: string) {
  const [row] = await db().$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM stations WHERE name LIKE ${prefix + "%"} AND gateway_id IS NOT NULL`;
  return Number(row!.n);
}

async function statementsReset() {
  if (PG_STATEMENTS) await db().$executeRawUnsafe("SELECT pg_stat_statements_reset()");
}

/** The statements that took PostgreSQL's time since the last reset, costliest first. */
async function topStatements(n: number) {
  if (!PG_STATEMENTS) return undefined;
  const rows = await db().$queryRawUnsafe<
    { calls: bigint; total_ms: number; rows: bigint; query: string }[]
  >(
    `SELECT calls, total_exec_time AS total_ms, rows,
            left(regexp_replace(query, '\\s+', ' ', 'g'), 240) AS query
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY total_exec_time DESC`,
  );
  const total = rows.reduce((ms, r) => ms + r.total_ms, 0);
  return {
    total_exec_ms: round2(total),
    calls: rows.reduce((n, r) => n + Number(r.calls), 0),
    top: rows.slice(0, n).map((r) => ({
      share: round2(r.total_ms / (total || 1)),
      calls: Number(r.calls),
      total_ms: round2(r.total_ms),
      mean_ms: round2(r.total_ms / Number(r.calls)),
      rows: Number(r.rows),
      query: r.query,
    })),
  };
}

/** Sessions PostgreSQL has opened on the product's database so far (pg_stat_database). */
async function sessionCount() {
  await db().$executeRawUnsafe("SELECT pg_stat_force_next_flush()");
  const [row] = await db().$queryRaw<{ n: bigint }[]>`
    SELECT sessions AS n FROM pg_stat_database WHERE datname = current_database()`;
  return Number(row!.n);
}
