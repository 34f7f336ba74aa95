import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { dbPool } from "../db";
import { queuedJobs } from "./job-queues";

/**
 * Every metric a process exports, in one registry per process. Next.js may load this module more
 * than once (one copy per route bundle), so the registry and its metrics live on globalThis: a
 * second copy finds the first one's instead of registering the same names again (prom-client
 * throws on that) or counting into a registry nobody scrapes. README.md, "Metrics", lists them.
 */
// Fine around the goals the benchmarks check (50 ms and 100 ms p99s), coarse past a second.
const LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 0.75, 1, 2.5, 5, 10,
];
const JOB_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  /** what each summed gauge adds up: every gateway in the process adds its own count */
  const sources: Record<SummedGauge, Set<() => number>> = {
    connections: new Set(),
    handshakesWaiting: new Set(),
    callsWaiting: new Set(),
  };
  /** a gauge whose value is the sum of its sources' counts when scraped */
  const summed = (name: string, help: string, of: Set<() => number>) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        let sum = 0;
        for (const count of of) sum += count();
        this.set(sum);
      },
    });
  return {
    registry,
    sources,
    ocppConnections: summed(
      "chargecloud_ocpp_connections",
      "Charger websockets this process holds (accepted and recorded connected).",
      sources.connections,
    ),
    ocppHandshakesWaiting: summed(
      "chargecloud_ocpp_handshakes_waiting",
      "Charger handshakes waiting for their turn at the pace of new connections (OCPP_HANDSHAKES_PER_SECOND).",
      sources.handshakesWaiting,
    ),
    ocppCallsWaiting: summed(
      "chargecloud_ocpp_calls_waiting",
      "Charger calls waiting for a turn in the gateway's line for calls recorded one at a time.",
      sources.callsWaiting,
    ),
    ocppCallsBusy: new Counter({
      name: "chargecloud_ocpp_calls_busy_total",
      help: "Charger calls the gateway's line answered busy (an InternalError; nothing recorded), by reason (line_full, waited_too_long).",
      labelNames: ["reason"] as const,
      registers,
    }),
    ocppHandshakes: new Counter({
      name: "chargecloud_ocpp_handshakes_total",
      help: "Charger handshakes answered, by outcome (accepted, refused) and HTTP status.",
      labelNames: ["outcome", "status"] as const,
      registers,
    }),
    ocppHandshakeDuration: new Histogram({
      name: "chargecloud_ocpp_handshake_duration_seconds",
      help: "Time from a handshake reaching the gateway's check to its answer, by outcome.",
      labelNames: ["outcome"] as const,
      buckets: [...LATENCY_BUCKETS, 30],
      registers,
    }),
    ocppMessageDuration: new Histogram({
      name: "chargecloud_ocpp_message_duration_seconds",
      help: "Charger calls handled (after their station's earlier calls), by action and outcome (ok, refused, error).",
      labelNames: ["action", "outcome"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    ocppCommandDuration: new Histogram({
      name: "chargecloud_ocpp_command_duration_seconds",
      help: "Calls sent to chargers, send to answer, by action and outcome (answered, call_error, unconfirmed, not_sent).",
      labelNames: ["action", "outcome"] as const,
      buckets: [...LATENCY_BUCKETS, 30],
      registers,
    }),
    v1RequestDuration: new Histogram({
      name: "chargecloud_v1_request_duration_seconds",
      help: "/v1 requests answered, by method, route template (unmatched when none) and status.",
      labelNames: ["method", "route", "status"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    jobDuration: new Histogram({
      name: "chargecloud_job_duration_seconds",
      help: "Job attempts run in this process, by job name and outcome (succeeded, retry, failed, lost).",
      labelNames: ["name", "outcome"] as const,
      buckets: JOB_BUCKETS,
      registers,
    }),
    jobsQueued: new Gauge({
      name: "chargecloud_jobs_queued",
      help: "Jobs queued and due (waiting for a runner), by queue and job name, on the queues this process watches.",
      labelNames: ["queue", "name"] as const,
      registers,
      async collect() {
        this.reset();
        for (const row of await queuedJobs()) this.set(row.labels, row.due);
      },
    }),
    jobsQueuedAge: new Gauge({
      name: "chargecloud_jobs_queued_oldest_age_seconds",
      help: "How long the oldest due job has waited for a runner, by queue and job name.",
      labelNames: ["queue", "name"] as const,
      registers,
      async collect() {
        this.reset();
        for (const row of await queuedJobs()) this.set(row.labels, row.oldestAgeSeconds);
      },
    }),
    dbPoolConnections: new Gauge({
      name: "chargecloud_db_pool_connections",
      help: "This process's database pool connections, by state (in_use, idle).",
      labelNames: ["state"] as const,
      registers,
      collect() {
        const pool = dbPool();
        this.set({ state: "in_use" }, pool ? pool.totalCount - pool.idleCount : 0);
        this.set({ state: "idle" }, pool?.idleCount ?? 0);
      },
    }),
    dbPoolWaiting: new Gauge({
      name: "chargecloud_db_pool_waiting",
      help: "Queries waiting for a connection from this process's database pool.",
      registers,
      collect() {
        this.set(dbPool()?.waitingCount ?? 0);
      },
    }),
    dbPoolMax: new Gauge({
      name: "chargecloud_db_pool_max",
      help: "The most connections this process's database pool opens.",
      registers,
      collect() {
        this.set(dbPool()?.options.max ?? 0);
      },
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

const KEY = Symbol.for("chargecloud.metrics");
const store = globalThis as unknown as { [KEY]?: Metrics };

/** This process's metrics (made on first use). */
export function metrics(): Metrics {
  return (store[KEY] ??= createMetrics());
}

/** The gauges that add up a count of each gateway in the process. */
type SummedGauge = "connections" | "handshakesWaiting" | "callsWaiting";

/**
 * Adds a gateway's count to a summed gauge (`connections`: `chargecloud_ocpp_connections`,
 * `handshakesWaiting`, `callsWaiting`); returns its removal.
 */
export function countInto(gauge: SummedGauge, count: () => number): () => void {
  const of = metrics().sources[gauge];
  of.add(count);
  return () => void of.delete(count);
}
