/**
 * One `ocpp` process (started by `npm start`'s script, with the web process beside it) and
 * simulated chargers in a separate process (bench/charger-sim.ts):
 * - concurrent connections held with heartbeats, and the gateway's memory per connection;
 * - sustained MeterValues persisted per second, with round-trip p50/p99;
 * - command round trip (API call to the charger's answer in the operation) p50/p99;
 * - charger message to event-in-log latency p50/p99.
 * Run: `npx tsx bench/ocpp.ts` (BENCH_CONNECTIONS default 1000). Writes bench/results/ocpp.json.
 */
import crypto from "node:crypto";
import os from "node:os";
import { loopback, startProduct } from "../e2e/fixtures/product";
import { aCharger } from "../testing/ocpp";
import { closeDb, db } from "../server/db";
import { treeCpuMs } from "./process-cpu";
import {
  histogramLatency,
  latency,
  machine,
  percentile,
  round2,
  scrapeMetrics,
  sumOf,
  watchMetrics,
  writeResult,
} from "./harness";
import { benchLocation, cheapPasswordHash, insertBenchStations } from "./bench-stations";
import { startFleet } from "./charger-fleet";
import { gatewayProcess } from "./gateway-process";
import { startSimulator } from "./simulator";
import { bootstrapProject } from "./product-project";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1000);
const CONNECT_RATE = Number(process.env.BENCH_CONNECT_RATE ?? 150);
const HOLD_SECONDS = Number(process.env.BENCH_HOLD_SECONDS ?? 20);
const HEARTBEAT_MS = Number(process.env.BENCH_HEARTBEAT_SECONDS ?? 5) * 1000;
/** MeterValues phases: the 20 chargers, then many (each a station of its own). */
const METER_CHARGERS = 20;
const METER_CHARGERS_MANY = Number(process.env.BENCH_METER_CHARGERS ?? 200);
const METER_SECONDS = 15;
const PASSWORD = "bench-password-000001";

/**
 * What the product's own /metrics said over the run, beside what the chargers measured: the
 * gateway's peak connection count and its handled time per charger action and per command sent
 * (bucket-interpolated quantiles), and the web process's time for the command requests.
 */
async function productFigures(gateway: ReturnType<typeof watchMetrics>, webMetricsUrl: string) {
  const { samples, peaks } = await gateway.stop();
  const web = await scrapeMetrics(webMetricsUrl, METRICS_TOKEN);
  const message = "chargecloud_ocpp_message_duration_seconds";
  const actions = new Set(
    samples.filter((s) => s.name === `${message}_count`).map((s) => s.labels.action!),
  );
  return {
    source: "the product's /metrics (histogram quantiles, interpolated within buckets)",
    connections_held_peak: peaks.chargecloud_ocpp_connections,
    db_pool_waiting_peak: peaks.chargecloud_db_pool_waiting,
    handshakes: {
      accepted: sumOf(samples, "chargecloud_ocpp_handshakes_total", { outcome: "accepted" }),
      refused: sumOf(samples, "chargecloud_ocpp_handshakes_total", { outcome: "refused" }),
    },
    messages_handled: Object.fromEntries(
      [...actions].map((action) => [
        action,
        {
          ...histogramLatency(samples, message, { action, outcome: "ok" }),
          not_ok:
            sumOf(samples, `${message}_count`, { action }) -
            sumOf(samples, `${message}_count`, { action, outcome: "ok" }),
        },
      ]),
    ),
    commands_sent: histogramLatency(samples, "chargecloud_ocpp_command_duration_seconds", {
      outcome: "answered",
    }),
    v1_send_command: histogramLatency(web, "chargecloud_v1_request_duration_seconds", {
      method: "POST",
      route: "/v1/tenants/{tenant_id}/stations/{station_id}/commands",
    }),
  };
}

const METRICS_TOKEN = crypto.randomBytes(24).toString("hex");
const loadAtStart = os.loadavg();
const product = await startProduct({ extraEnv: { METRICS_TOKEN } });
const gatewayMetrics = watchMetrics(
  `${loopback(product.ocppUrl).replace("ws:", "http:")}/metrics`,
  METRICS_TOKEN,
  ["chargecloud_ocpp_connections", "chargecloud_db_pool_waiting"],
);
const health = async () =>
  (await (await fetch(`${loopback(product.ocppUrl).replace("ws:", "http:")}/health`)).json()) as {
    connections: number;
    memory_rss_bytes: number;
  };
try {
  const boot = await bootstrapProject(product, "OCPP");
  const tenantId = boot.tenant_id;
  const key = boot.api_key.secret;
  product.admin(["set-rate-limit", boot.api_key.id, "1200"]);
  const location = await benchLocation(db(), tenantId);
  const prefix = `BENCH-${Date.now().toString(36)}-`;
  const total = CONNECTIONS + METER_CHARGERS + 2 * METER_CHARGERS_MANY + 1;
  const ids = await insertBenchStations(db(), {
    tenants: [location],
    prefix,
    first: 0,
    count: total,
    passwordHash: cheapPasswordHash(PASSWORD),
  });
  const station = { id: ids.get(`${prefix}${total - 1}`)! };
  await closeDb();
  const url = `${loopback(product.ocppUrl)}/ocpp`;

  // 1. connections held with heartbeats, the chargers over several simulator processes
  const gateway = gatewayProcess(new URL(product.ocppUrl).port);
  const idle = { ...(await health()), fds: gateway.openFiles() };
  // One socket is one open file: a process holds at most its limit less what it already has open
  // (and room for the database pool to grow). Past that the kernel refuses the accept (EMFILE).
  const room = gateway.openFileLimit() - idle.fds - 64;
  const count = Math.min(CONNECTIONS, room);
  const fleet = startFleet({
    urls: [url],
    prefix,
    first: 0,
    count,
    password: PASSWORD,
    ratePerSecond: CONNECT_RATE,
    heartbeatMs: HEARTBEAT_MS,
  });
  const connectStart = performance.now();
  const ready = await fleet.ready;
  const connectSeconds = (performance.now() - connectStart) / 1000;
  fleet.hold();
  const cpuAtHold = gateway.cpuSeconds();
  await new Promise((r) => setTimeout(r, (HOLD_SECONDS * 1000) / 2));
  const held = { ...(await health()), fds: gateway.openFiles() };
  await new Promise((r) => setTimeout(r, (HOLD_SECONDS * 1000) / 2));
  const holdCpu = gateway.cpuSeconds() - cpuAtHold;
  const recordedAtStop = (await health()).connections;
  const beats = await fleet.stop();
  const sockets = ready.connected - beats.dropped;
  // Every connect and disconnect recorded before the next phase, or its chargers' connects would
  // queue behind the backlog; how long that takes is the gateway's recording rate.
  const stoppedAt = performance.now();
  while ((await db().station.count({ where: { tenantId, gatewayId: { not: null } } })) > 0) {
    if (performance.now() - stoppedAt > 20 * 60_000) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const settleSeconds = (performance.now() - stoppedAt) / 1000;
  await closeDb();
  const connections = {
    asked: CONNECTIONS,
    attempted: count,
    limited_by_open_file_limit: count < CONNECTIONS,
    connected: ready.connected,
    failed: ready.failed,
    failures: ready.failures,
    retries: ready.retries,
    connect_rate_per_second: CONNECT_RATE,
    connect_seconds: round2(connectSeconds),
    simulator_processes: fleet.processes,
    held_sockets: sockets,
    held_recorded: held.connections, // connect recorded: commands can reach them
    dropped_while_holding: beats.dropped,
    hold_seconds: HOLD_SECONDS,
    heartbeat_interval_ms: HEARTBEAT_MS,
    heartbeats: beats.heartbeats,
    heartbeat_errors: beats.heartbeatErrors,
    heartbeat_p50_ms: percentile(beats.latencies, 50),
    heartbeat_p99_ms: percentile(beats.latencies, 99),
    gateway_open_files: { idle: idle.fds, held: held.fds, limit: gateway.openFileLimit() },
    gateway_rss_idle_mb: round2(idle.memory_rss_bytes / 2 ** 20),
    gateway_rss_held_mb: round2(held.memory_rss_bytes / 2 ** 20),
    kib_per_connection: sockets
      ? round2((held.memory_rss_bytes - idle.memory_rss_bytes) / 1024 / sockets)
      : null,
    records_settled_seconds_after_stop: round2(settleSeconds),
    connection_records_per_second_after_stop: round2(
      (sockets - recordedAtStop + sockets) / settleSeconds,
    ),
    gateway_cpu_seconds_holding: round2(holdCpu),
    gateway_cpu_ms_per_heartbeat: beats.heartbeats
      ? round2((holdCpu * 1000) / beats.heartbeats)
      : null,
  };
  console.log(JSON.stringify({ connections }));

  // 2. sustained MeterValues: 20 chargers, then many; then many whose every reading is an event
  // (timestamps 10 s apart), which is where one tenant's event counter would show. CPU is the
  // whole tree's (product, PostgreSQL, simulator) per message persisted.
  const meterPhase = async (first: number, count: number, readingEveryS?: number) => {
    const cpu0 = treeCpuMs();
    const run = startSimulator("bench/charger-sim.ts", {
      kind: "meter",
      url,
      prefix,
      first,
      count,
      password: PASSWORD,
      seconds: METER_SECONDS,
      readingEveryS,
    });
    const line = await run.next();
    await run.exited;
    const cpu = treeCpuMs();
    const messages = Number(line.messages ?? 0);
    return {
      chargers: count,
      seconds: METER_SECONDS,
      ...line,
      cpu_ms_per_message:
        cpu0 !== null && cpu !== null && messages ? round2((cpu - cpu0) / messages) : null,
    };
  };
  const meter = await meterPhase(CONNECTIONS, METER_CHARGERS);
  const meterMany = await meterPhase(CONNECTIONS + METER_CHARGERS, METER_CHARGERS_MANY);
  const meterEvents = await meterPhase(
    CONNECTIONS + METER_CHARGERS + METER_CHARGERS_MANY,
    METER_CHARGERS_MANY,
    10,
  );

  // 3 and 4. command round trip and message-to-event latency, one charger (the last station)
  const charger = aCharger({
    url,
    identity: `${prefix}${total - 1}`,
    password: PASSWORD,
    protocol: "ocpp1.6",
  });
  charger.handle("Reset", () => Promise.resolve({ status: "Accepted" }));
  await charger.connect();
  // Commands only once the connect is recorded (the gateway records connects in batches): one
  // sent before is `station_offline` at once and is not a round trip. Read from the database, not
  // through /v1, so the first command still finds the web process as the meter phases left it.
  while (!(await db().station.findUnique({ where: { id: station.id } }))?.gatewayId)
    await new Promise((r) => setTimeout(r, 100));
  const commandMs: number[] = [];
  /** per command, by the wall clock: sent, answered, and the operation's id */
  const commands: { sent: number; answered: number; id: string }[] = [];
  for (let i = 0; i < 100; i++) {
    const sent = Date.now();
    const t0 = performance.now();
    const res = await fetch(
      `${loopback(product.baseUrl)}/v1/tenants/${tenantId}/stations/${station.id}/commands`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "idempotency-key": `bench-cmd-${Date.now()}-${i}`,
        },
        body: JSON.stringify({ action: "reset", mode: "soft" }),
      },
    );
    const op = (await res.json()) as { status: string; id: string };
    if (op.status === "succeeded") commandMs.push(performance.now() - t0);
    commands.push({ sent, answered: Date.now(), id: op.id });
  }
  // Where a command's time goes, from the operation's own timestamps (created: the API's
  // transaction began; claimed and completed: by the gateway, before it sends and after the answer).
  const rows = await db().operation.findMany({
    where: { id: { in: commands.map((c) => c.id) } },
    select: { id: true, createdAt: true, claimedAt: true, completedAt: true },
  });
  const stage = (f: (c: (typeof commands)[number], r: (typeof rows)[number]) => number) => {
    const ms = commands
      .map((c) => {
        const r = rows.find((row) => row.id === c.id);
        return r?.claimedAt && r.completedAt ? f(c, r) : null;
      })
      .filter((v): v is number => v !== null);
    return latency(ms);
  };
  const stagesOf = (c: (typeof commands)[number]) => {
    const r = rows.find((row) => row.id === c.id);
    if (!r?.claimedAt || !r.completedAt) return null;
    return {
      round_trip_ms: c.answered - c.sent,
      request_to_operation_created: r.createdAt.getTime() - c.sent,
      created_to_claimed_by_gateway: r.claimedAt.getTime() - r.createdAt.getTime(),
      claimed_to_answer_recorded: r.completedAt.getTime() - r.claimedAt.getTime(),
      answer_recorded_to_response: c.answered - r.completedAt.getTime(),
    };
  };
  const slowest = commands.reduce((a, b) => (b.answered - b.sent > a.answered - a.sent ? b : a));
  const commandStages = {
    request_to_operation_created: stage((c, r) => r.createdAt.getTime() - c.sent),
    created_to_claimed_by_gateway: stage((_, r) => r.claimedAt!.getTime() - r.createdAt.getTime()),
    claimed_to_answer_recorded: stage((_, r) => r.completedAt!.getTime() - r.claimedAt!.getTime()),
    answer_recorded_to_response: stage((c, r) => c.answered - r.completedAt!.getTime()),
  };
  await closeDb();
  const eventMs: number[] = [];
  let cursor = 0;
  for (let i = 0; i < 100; i++) {
    const status = i % 2 ? "Available" : "Preparing";
    const t0 = performance.now();
    void charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status,
      timestamp: new Date().toISOString(),
    });
    for (;;) {
      const page = (await (
        await fetch(
          `${loopback(product.baseUrl)}/v1/tenants/${tenantId}/events?after=${cursor}&type=connector.status_changed&station_id=${station.id}`,
          { headers: { authorization: `Bearer ${key}` } },
        )
      ).json()) as { data: unknown[]; next_cursor: number };
      cursor = page.next_cursor;
      if (page.data.length) break;
    }
    eventMs.push(performance.now() - t0);
  }
  await charger.close({ force: true });
  const fromMetrics = await productFigures(gatewayMetrics, `${loopback(product.baseUrl)}/metrics`);
  writeResult("ocpp", {
    benchmark: "ocpp",
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    connections,
    meter_values: meter,
    meter_values_many_chargers: meterMany,
    meter_values_every_one_an_event: meterEvents,
    command_round_trip: {
      samples: commandMs.length,
      ...latency(commandMs),
      stages: commandStages,
      // of 100 samples the p99 is the slowest: which command it was, and where its time went;
      // the first command of a process runs every step's code and statements cold
      first_command: stagesOf(commands[0]!),
      p99_without_first_ms: latency(commandMs.slice(1)).p99_ms,
      slowest_command: { index: commands.indexOf(slowest), ...stagesOf(slowest) },
    },
    message_to_event_in_log: {
      samples: eventMs.length,
      ...latency(eventMs),
    },
    product_metrics: fromMetrics,
  });
} finally {
  await product.stop();
}
