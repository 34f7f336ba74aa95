import type { Db } from "../server/db";
import { log } from "../server/log";

export type LastSeenOptions = {
  db: Db;
  /** how often the due writes go out, in one statement */
  flushMs?: number;
  /** a station's `last_seen` is written at most this often */
  minIntervalMs?: number;
};

/**
 * `last_seen` for the stations this gateway holds: every charger message marks its station seen,
 * and the marks are written together, one UPDATE per `flushMs` for every station due, at most one
 * write per station per `minIntervalMs`. So a message, a Heartbeat included, never waits for the
 * database to answer, and 20,000 chargers heartbeating cost the database one statement a second
 * rather than one commit per heartbeat. `last_seen` runs behind the charger by at most
 * `minIntervalMs + flushMs` (chargers heartbeat every 300 s here). A write never moves it back.
 */
export function createLastSeen({ db, flushMs = 1_000, minIntervalMs = 30_000 }: LastSeenOptions) {
  /** when each held station's `last_seen` was last queued; dropped when its socket closes */
  const queued = new Map<number, number>();
  let due = new Map<number, number>();
  let flushing: Promise<void> = Promise.resolve();

  async function write(batch: Map<number, number>) {
    if (batch.size === 0) return;
    const ids = [...batch.keys()];
    const times = [...batch.values()].map((ms) => new Date(ms));
    await db.$executeRaw`
      UPDATE stations AS s SET last_seen_at = v.seen
      FROM unnest(${ids}::int[], ${times}::timestamptz[]) AS v(id, seen)
      WHERE s.id = v.id AND (s.last_seen_at IS NULL OR s.last_seen_at < v.seen)`.catch(
      (error: unknown) => log.warn("last_seen update failed", { stations: ids.length, error }),
    );
  }

  const flush = () => {
    const batch = due;
    due = new Map();
    flushing = flushing.then(() => write(batch));
    return flushing;
  };
  const timer = setInterval(() => void flush(), flushMs);
  timer.unref();

  return {
    seen(stationId: number, now = Date.now()) {
      if (now - (queued.get(stationId) ?? -Infinity) < minIntervalMs) return;
      queued.set(stationId, now);
      due.set(stationId, now);
    },
    /** its socket closed: a later connection starts afresh (any due write still goes out) */
    forget(stationId: number) {
      queued.delete(stationId);
    },
    flush,
    /** writes what is due and stops */
    stop: async () => {
      clearInterval(timer);
      await flush();
    },
  };
}
