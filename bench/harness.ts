/**
 * What the benchmarks that run on their own database share: the scratch database, percentiles,
 * the machine they ran on, and where their figures go. Server modules read the environment when
 * first imported, so a benchmark imports them (dynamically) only after `scratchDatabase`.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmbeddedDatabase } from "../server/db/embedded";
import { applyMigrations } from "../server/db/migrate";
import {
  histogramOf,
  histogramQuantile,
  scrapeMetrics,
  sumOf,
  type HistogramFigures,
  type Sample,
} from "../testing/read-metrics";
import { round2 } from "./percentiles";

/** A migrated embedded PostgreSQL of its own in a temporary directory, removed by `stop`. */
export async function scratchDatabase(name: string, env: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `cp-bench-${name}-`));
  const database = await startEmbeddedDatabase({ dataDir });
  process.env.DATABASE_URL = database.url;
  process.env.SECRET_KEY = crypto.randomBytes(32).toString("base64");
  Object.assign(process.env, env);
  await applyMigrations(database.url);
  return {
    url: database.url,
    stop: async () => {
      await database.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export { latency, percentile, round2 } from "./percentiles";

/** The machine and its load, from a load average taken when the measuring started. */
export function machine(loadAtStart: readonly number[]) {
  return {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model ?? "unknown",
    node: process.version,
    load_average_1_5_15: { start: loadAtStart.map(round2), end: os.loadavg().map(round2) },
  };
}

/** Prints the figures and writes them to bench/results/<name>.json. */
export function writeResult(name: string, result: unknown) {
  const text = `${JSON.stringify(result, null, 2)}\n`;
  console.log(text);
  const out = path.join(import.meta.dirname, "results", `${name}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, text);
}

/**
 * Calls the real /v1 router in-process (no socket) with a fresh Idempotency-Key on each POST, and
 * times the call; anything but a 2xx stops the benchmark.
 */
export function inProcessV1(handleV1: (request: Request) => Promise<Response>) {
  let keys = 0;
  return async (key: string, method: string, url: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (method === "POST") headers["idempotency-key"] = `bench-${Date.now()}-${++keys}`;
    const t0 = performance.now();
    const res = await handleV1(
      new Request(`http://localhost:3000${url}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const json = (await res.json()) as Record<string, unknown>;
    const ms = performance.now() - t0;
    if (res.status >= 300)
      throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
    return { json, ms };
  };
}

/** A location and a one-connector station in the tenant at `tenantPath`, through /v1. */
export async function aBenchStation(
  v1: ReturnType<typeof inProcessV1>,
  key: string,
  tenantPath: string,
  name: string,
) {
  const location = await v1(key, "POST", `${tenantPath}/locations`, {
    name: "Bench",
    address: { street: "1 Bench St", city: "Austin", country: "US" },
    coordinates: { latitude: 30, longitude: -97 },
    time_zone: "America/Chicago",
  });
  return (
    await v1(key, "POST", `${tenantPath}/stations`, {
      name: `${name}-${Date.now()}`,
      location_id: location.json.id,
      connector_count: 1,
    })
  ).json as { id: number; connectors: { id: number }[] };
}

/**
 * A process's own figures, from its `/metrics` (served when the product runs with METRICS_TOKEN):
 * `scrapeMetrics(url, token)` gives the samples; `sumOf` a counter or gauge over matching series;
 * `histogramOf` and `histogramQuantile` a histogram's counts and its quantiles in seconds.
 */
export { histogramOf, histogramQuantile, scrapeMetrics, sumOf };
export type { HistogramFigures, Sample };

/** A histogram's count and its bucket-interpolated p50/p99 in milliseconds (null when empty). */
export function histogramLatency(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
) {
  const h = histogramOf(samples, name, labels);
  const ms = (q: number) => (h.count ? round2(histogramQuantile(h, q) * 1000) : null);
  return { count: h.count, p50_ms: ms(0.5), p99_ms: ms(0.99) };
}

/**
 * Scrapes `url` every `everyMs` while a benchmark runs, keeping the highest value each gauge in
 * `peaks` reached (a gauge read only at the end would miss what a phase held); `stop` scrapes a
 * last time and returns those samples with the peaks.
 */
export function watchMetrics(url: string, token: string, peaks: string[], everyMs = 2_000) {
  const highest = Object.fromEntries(peaks.map((name) => [name, 0]));
  const look = async () => {
    const samples = await scrapeMetrics(url, token);
    for (const name of peaks) highest[name] = Math.max(highest[name]!, sumOf(samples, name));
    return samples;
  };
  const timer = setInterval(() => void look().catch(() => {}), everyMs).unref();
  return {
    stop: async () => {
      clearInterval(timer);
      return { samples: await look(), peaks: highest };
    },
  };
}
