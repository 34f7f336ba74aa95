import type { Db } from "../server/db";
import { inTransaction } from "../server/db/retry";
import { log } from "../server/log";

export type LastSeenOptions = {
  db: Db;
  /** how often the due writes go out, in one statement */
  flushMs?: number;
  /** a station's `last_seen` is written at most this often */
  minIntervalMs?: number;
};

type Mark = { at: number; generation: number };

/**
 * `last_seen` for the stations this gateway holds: every charger message marks its station seen,
 * and the marks are written together, one UPDATE per `flushMs` for every station due, at most one
 * write per station per `minIntervalMs`. So a message, a Heartbeat included, never waits for the
 * database to answer, and 20,000 chargers heartbeating cost the database one statement a second
 * rather than one commit per heartbeat. `last_seen` runs behind the charger by at most
 * `minIntervalMs + flushMs` (chargers heartbeat every 300 s here). A write never moves it back.
 * A MeterValues takes its station's mark along instead (`claim`): its batch writes it in the
 * update of the station row it makes anyway (its event counter), so a reporting charger's row is
 * not written a second time by the flush.
 *
 * A mark names the connection it was seen on (its generation, `ConnectionChange`) and is written
 * only while that connection is still the station's, so a replaced socket's late message changes
 * nothing a newer connection set. A flush locks its stations in id order before it writes them
 * (the lock order: batches of charger calls and connection changes lock theirs in id order too;
 * an UPDATE joined to the list locked them in whatever order the plan read them, and deadlocked
 * with those), runs again after a deadlock or serialization failure, and a flush that still fails
 * keeps its marks for the next one.
 */
export function createLastSeen({ db, flushMs = 1_000, minIntervalMs = 30_000 }: LastSeenOptions) {
  /** when each held station's `last_seen` was last queued; dropped when its socket closes */
  const queued = new Map<number, number>();
  let due = new Map<number, Mark>();
  let flushing: Promise<void> = Promise.resolve();

  async function write(batch: Map<number, Mark>) {
    if (batch.size === 0) return;
    const ids = [...batch.keys()].sort((a, b) => a - b);
    const marks = ids.map((id) => batch.get(id)!);
    try {
      await inTransaction(
        db,
        async (tx) => {
          await tx.$queryRaw`/* prepared */
            SELECT id FROM stations WHERE id = ANY(${ids}::int[]) ORDER BY id FOR NO KEY UPDATE`;
          await tx.$executeRaw`/* prepared */
            UPDATE stations AS s SET last_seen_at = v.seen
            FROM unnest(${ids}::int[], ${marks.map((m) => new Date(m.at))}::timestamptz[],
                        ${marks.map((m) => m.generation)}::int[]) AS v(id, seen, generation)
            WHERE s.id = v.id AND s.connection_generation = v.generation
              AND (s.last_seen_at IS NULL OR s.last_seen_at < v.seen)`;
        },
        { maxWait: 10_000, timeout: 15_000 },
      );
    } catch (error) {
      log.warn("last_seen update failed; kept for the next flush", { stations: ids.length, error });
      for (const [id, mark] of batch) if (!due.has(id)) due.set(id, mark);
    }
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
    /** a message of the station's connection `generation` arrived (`now`) */
    seen(stationId: number, generation: number, now = Date.now()) {
      if (now - (queued.get(stationId) ?? -Infinity) < minIntervalMs) return;
      queued.set(stationId, now);
      due.set(stationId, { at: now, generation });
    },
    /**
     * As `seen`, for a message whose batch writes the mark itself, in its own update of the
     * station row (a MeterValues, server/charger-reports/meter-batch.ts): when one is due, the
     * time to write, taken as queued here; else null. `release` hands it back to the flush when
     * the batch did not write it (the message was recorded alone, or the batch failed).
     */
    claim(stationId: number, now = Date.now()): Date | null {
      if (now - (queued.get(stationId) ?? -Infinity) < minIntervalMs) return null;
      queued.set(stationId, now);
      return new Date(now);
    },
    /** a claimed mark the batch did not write: the next flush writes it (as `seen` queued it) */
    release(stationId: number, generation: number, at: Date) {
      const was = due.get(stationId);
      if (!was || was.at < at.getTime()) due.set(stationId, { at: at.getTime(), generation });
    },
    /**
     * The station's connect was recorded (`at`): its `last_seen` was written with it, so its
     * messages in the next `minIntervalMs` queue no write. (Each new charger's Boot and Status
     * used to queue one, and every second's flush locked and wrote the rows of all the stations
     * that had just connected, which those stations' own batches then waited for.)
     */
    connected(stationId: number, at: number) {
      if (at > (queued.get(stationId) ?? -Infinity)) queued.set(stationId, at);
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
