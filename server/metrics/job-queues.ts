import { db } from "../db";
import { log } from "../log";

/**
 * The job queue gauges, read from the `jobs` table when scraped. A process watches the queues
 * its runners serve (every job name on them) and the web process the webhook deliveries alone;
 * one grouped query over queued, due jobs (the partial index on `run_at` over unfinished jobs)
 * answers both gauges, and its answer is kept a couple of seconds so several scrapers, or both
 * gauges of one scrape, cost one query.
 */
export type QueuedJobs = {
  labels: { queue: string; name: string };
  due: number;
  oldestAgeSeconds: number;
};

const CACHE_MS = 2_000;
const ALL = "*";
type State = {
  /** `${queue} ${name or *}` → how many watchers (runners may share a queue) */
  watches: Map<string, number>;
  cached?: { at: number; rows: Promise<QueuedJobs[]> };
};
const KEY = Symbol.for("chargecloud.metrics.job-queues");
const store = globalThis as unknown as { [KEY]?: State };
const state = (): State => (store[KEY] ??= { watches: new Map() });

/** Reports `queue` (only job `name` when given) in the queue gauges; returns the removal. */
export function watchQueue(queue: string, name?: string): () => void {
  const { watches } = state();
  const key = `${queue} ${name ?? ALL}`;
  watches.set(key, (watches.get(key) ?? 0) + 1);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    const left = (watches.get(key) ?? 1) - 1;
    if (left > 0) watches.set(key, left);
    else watches.delete(key);
  };
}

/** Due queued jobs per watched queue and name (cached for CACHE_MS). */
export function queuedJobs(): Promise<QueuedJobs[]> {
  const s = state();
  const now = Date.now();
  if (s.cached && now - s.cached.at < CACHE_MS) return s.cached.rows;
  const rows = readQueuedJobs(s.watches);
  s.cached = { at: now, rows };
  return rows;
}

async function readQueuedJobs(watches: Map<string, number>): Promise<QueuedJobs[]> {
  const queues = [...new Set([...watches.keys()].map((key) => key.slice(0, key.lastIndexOf(" "))))];
  if (queues.length === 0) return [];
  try {
    const rows = await db().$queryRaw<{ queue: string; name: string; due: number; age: number }[]>`
      SELECT queue, name, count(*)::int AS due,
             extract(epoch FROM clock_timestamp() - min(run_at))::float8 AS age
        FROM jobs
       WHERE status = 'queued' AND run_at <= clock_timestamp() AND queue = ANY(${queues}::text[])
       GROUP BY queue, name`;
    return rows
      .filter((r) => watches.has(`${r.queue} ${ALL}`) || watches.has(`${r.queue} ${r.name}`))
      .map((r) => ({
        labels: { queue: r.queue, name: r.name },
        due: r.due,
        oldestAgeSeconds: Math.max(0, r.age),
      }));
  } catch (error) {
    // A scrape still answers the process's own figures while the database does not.
    log.warn("reading job queue metrics failed", { error });
    return [];
  }
}
