import type pg from "pg";
import { log } from "../log";
import { windowStart } from "./rate-limit";

/** How often a process adds the attempts it counted in memory to `rate_limit_windows`. */
export const WINDOW_FLUSH_MS = 100;

type Bucket = {
  /** the window these counts are of (ms since the epoch) */
  window: number;
  /** the bucket's count in the database, as of its last statement this process saw */
  known: number;
  /** attempts this process admitted or refused that are not written yet */
  pending: number;
  /** when `known` came from the database (this process's clock, ms) */
  syncedAt: number;
};

/**
 * How old the database's count may be for an attempt to be counted in memory: a bucket this
 * process did not write for longer (it was idle for it) is asked of the database again, so its
 * first attempt after a pause sees what the other processes counted meanwhile. Not when the
 * process is alone on its database (`count`'s `alone`): no one else counts, so its own count is
 * the database's.
 */
const FRESH_MS = 2.5 * WINDOW_FLUSH_MS;

/**
 * The per-key one-minute windows of the rate limit, counted in this process's memory between
 * flushes (server/access/README.md, "Rate limit counts"). A bucket's first attempt in a window
 * goes to the database as before (the key's lookup bumps its window and returns the count); the
 * process then knows the count, and the following attempts in the window are counted here: the
 * attempt's count is the database's count as last seen plus what this process counted since.
 * Every `WINDOW_FLUSH_MS` one statement adds the unwritten counts (`INSERT … ON CONFLICT DO
 * UPDATE`) and returns the totals, which carry the other processes' attempts back.
 *
 * With one process the count is exact, and a bucket stays in memory however long the key is idle
 * in the window (the caller says the process is alone: its key cache's listener is the only one on
 * the database), so a key used once a second costs no statement either. With several, a process
 * sees the others' attempts only once they flushed them and it flushed its own since (a busy
 * process flushes every interval; an idle one asks the database again at its next attempt,
 * `FRESH_MS`): so together they can admit past the limit what the others admitted of the key in
 * the last ~200 ms, at most. A flush that fails keeps its counts for the next; a crash loses at
 * most the last interval's.
 */
export class WindowCounts {
  private buckets = new Map<string, Bucket>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** the newest window an attempt was counted in: older ones are over */
  private current = 0;
  /** lookups counting in the database now (`apartFromFlushes`), which a flush waits for */
  private lookups = 0;
  private lookupsDone: (() => void)[] = [];
  /** the flush writing now, which a lookup waits for */
  private flushing: Promise<void> | null = null;

  constructor(private readonly pool: () => pg.Pool) {
    live().add(this);
  }

  /** Forgets every count: the rows were changed in the database (`noteWindowsStatement`). */
  forget() {
    this.buckets.clear();
  }

  /**
   * Counts one attempt in memory and returns its count in the window, or null when this process
   * does not know the bucket's count in the current window (the caller asks the database then).
   * `alone`: no other process counts these buckets in the database now (then a bucket idle past
   * `FRESH_MS` is still known).
   */
  count(bucket: string, now: number, alone = false): number | null {
    const window = windowStart(now).getTime();
    this.current = Math.max(this.current, window);
    const state = this.buckets.get(bucket);
    if (!state || state.window !== window) return null;
    if (!alone && Date.now() - state.syncedAt > FRESH_MS) return null;
    state.pending++;
    this.schedule();
    return state.known + state.pending;
  }

  /**
   * What the database answered for an attempt it counted itself (its count in `now`'s window);
   * returns the attempt's count, with what this process counted and has not written yet.
   */
  noteCounted(bucket: string, now: number, count: number): number {
    const window = windowStart(now).getTime();
    this.current = Math.max(this.current, window);
    const state = this.buckets.get(bucket);
    const syncedAt = Date.now();
    if (!state || state.window < window) {
      this.buckets.set(bucket, { window, known: count, pending: 0, syncedAt });
      return count;
    }
    if (state.window > window) return count;
    state.known = Math.max(state.known, count);
    state.syncedAt = syncedAt;
    // the database's count of this attempt, and ours it has not been told of
    return count + state.pending;
  }

  /**
   * Runs a lookup that counts an attempt in the database and tells it `noteCounted`, never while
   * a flush writes. A flush moves the pending counts to `known` before its statement reaches the
   * database; a lookup's count read meanwhile (or a flush between a lookup's statement and its
   * `noteCounted`) would leave that flush's attempts out of the lookup's answer. So lookups wait
   * for a flush under way, and a flush waits for the lookups under way (they run together).
   */
  async apartFromFlushes<T>(lookup: () => Promise<T>): Promise<T> {
    while (this.flushing) await this.flushing;
    this.lookups++;
    try {
      return await lookup();
    } finally {
      if (--this.lookups === 0) for (const done of this.lookupsDone.splice(0)) done();
    }
  }

  /** Attempts counted and not yet written (tests). */
  unwritten(): number {
    let sum = 0;
    for (const state of this.buckets.values()) sum += state.pending;
    return sum;
  }

  private schedule() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, WINDOW_FLUSH_MS);
    this.timer.unref();
  }

  /** Writes what was counted; flushes run one after another. Never throws. */
  flush(): Promise<void> {
    const run = this.writing.then(() => this.writeOnce());
    this.writing = run;
    return run;
  }

  private async writeOnce() {
    let written!: () => void;
    this.flushing = new Promise((resolve) => (written = resolve));
    try {
      while (this.lookups > 0) await new Promise<void>((done) => this.lookupsDone.push(done));
      await this.write();
    } finally {
      this.flushing = null;
      written();
    }
  }

  private async write() {
    const current = this.current;
    const ids: string[] = [];
    const windows: Date[] = [];
    const counts: number[] = [];
    for (const [id, state] of this.buckets) {
      // a past window's counts no longer decide anything; its bucket is forgotten
      if (state.window < current) {
        this.buckets.delete(id);
        continue;
      }
      if (state.pending === 0) continue;
      ids.push(id);
      windows.push(new Date(state.window));
      counts.push(state.pending);
      // written, as far as this process's counts are concerned, until the database says more
      state.known += state.pending;
      state.pending = 0;
    }
    if (ids.length === 0) return;
    try {
      // in key order, so two processes' flushes lock the same rows in the same order
      const { rows } = await this.pool().query<{ id: string; window_start: Date; count: number }>({
        name: "rate-limit-flush",
        text: `INSERT INTO rate_limit_windows AS w (api_key_id, window_start, count)
               SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[]) ORDER BY 1
               ON CONFLICT (api_key_id) DO UPDATE SET
                 count = CASE WHEN w.window_start = EXCLUDED.window_start
                              THEN w.count + EXCLUDED.count ELSE EXCLUDED.count END,
                 window_start = EXCLUDED.window_start
               WHERE w.window_start <= EXCLUDED.window_start
               RETURNING api_key_id AS id, window_start, count`,
        values: [ids, windows, counts],
      });
      for (const row of rows) {
        const state = this.buckets.get(row.id);
        if (state?.window !== row.window_start.getTime()) continue;
        // the row's total as this flush left it: every process's written counts, ours included
        // (so a row reset in the database, as tests do, resets the process's count too)
        state.known = row.count;
        state.syncedAt = Date.now();
      }
      // a window the database holds as over while we wrote: nothing of ours is known there
      const answered = new Set(rows.map((row) => row.id));
      for (const id of ids) if (!answered.has(id)) this.buckets.delete(id);
    } catch (error) {
      ids.forEach((id, i) => {
        const state = this.buckets.get(id);
        if (state?.window !== windows[i]!.getTime()) return;
        state.known -= counts[i]!;
        state.pending += counts[i]!;
      });
      log.warn("writing the rate-limit counts failed; kept for the next flush", { error });
      this.schedule();
    }
  }

  /** Writes what is left (the process is about to end). */
  async stop() {
    clearTimeout(this.timer);
    this.timer = undefined;
    live().delete(this);
    await this.flush();
  }
}

const globalForCounts = globalThis as unknown as { __liveWindowCounts?: Set<WindowCounts> };
const live = () => (globalForCounts.__liveWindowCounts ??= new Set());

/** A reset of the windows in the database (an UPDATE, DELETE or TRUNCATE of the table). */
const WINDOWS_RESET =
  /^\s*(?:UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+(?:"?public"?\.)?"?rate_limit_windows\b/i;

/**
 * For the process's own pool: a statement it sends. One that resets the windows (as tests and
 * an operator may) makes the process forget its counts, so its next attempt of each key asks the
 * database again rather than counting on from what is gone.
 */
export function noteWindowsStatement(text: string) {
  const all = live();
  if (all.size === 0 || !WINDOWS_RESET.test(text)) return;
  for (const counts of all) counts.forget();
}
