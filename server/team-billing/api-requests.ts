import { Prisma } from "../generated/prisma/client";
import { db as getDb, queryRows, type DbTx } from "../db";
import { log } from "../log";
import { onShutdown } from "../lib/shutdown";

const DAY_MS = 86_400_000;
/** Every day number (days since 1970-01-01, UTC) is below this: keys are tenant × this + day. */
const DAYS = 100_000;

/** How often a web process adds its counts to the database, and so what a crash can lose. */
export const FLUSH_INTERVAL_MS = 5_000;

/**
 * /v1 requests answered per tenant and UTC day, counted in this process's memory and added to
 * `api_request_counts` in batches (`flush`): one statement, `INSERT … ON CONFLICT DO UPDATE SET
 * count = count + EXCLUDED.count`, so any number of web processes add up without reading
 * first. A request pays one Map increment; the database sees one statement per process every
 * `FLUSH_INTERVAL_MS`, whatever the request rate.
 *
 * Nothing here can fail a request: `count` only touches memory, and a flush that fails (database
 * down, deadlock, timeout) puts its counts back to be written by the next one. What can be lost:
 * the counts of the last seconds (at most one interval, plus a flush in flight) when the process
 * dies without its shutdown flush (SIGKILL, a crash, the machine). A flush whose commit the
 * database made but whose answer never arrived (the connection dropped at that instant) is
 * retried, so it is counted twice: at most one interval's requests, once per such failure.
 */
export class ApiRequestCounter {
  /** tenant × DAYS + day → requests not yet written */
  private pending = new Map<number, number>();
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly client: () => DbTx = getDb) {}

  /** One answered request of `tenantId` at `now` (ms since the epoch). Memory only. */
  count(tenantId: number, now = Date.now()) {
    const key = tenantId * DAYS + Math.floor(now / DAY_MS);
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
  }

  /** Requests counted and not yet written, by tenant (for tests and the shutdown log). */
  unwritten(): number {
    let sum = 0;
    for (const n of this.pending.values()) sum += n;
    return sum;
  }

  /**
   * Adds what was counted so far to the database. Flushes run one after another in a process (a
   * call waits for the one in flight, then writes what came since). Resolves true when written,
   * false when the write failed; the counts are then kept for the next flush. Never throws.
   */
  flush(): Promise<boolean> {
    const run = this.writing.then(() => this.writeOnce());
    this.writing = run.then(() => undefined);
    return run;
  }

  private async writeOnce(): Promise<boolean> {
    if (this.pending.size === 0) return true;
    const batch = this.pending;
    this.pending = new Map();
    // in key order, so two processes' flushes lock the same rows in the same order
    const keys = [...batch.keys()].sort((a, b) => a - b);
    const tenants = keys.map((k) => Math.floor(k / DAYS));
    const days = keys.map((k) => k % DAYS);
    const counts = keys.map((k) => batch.get(k)!);
    try {
      // A tenant gone meanwhile (the join drops it) must not keep the batch failing forever.
      await queryRows(
        this.client(),
        Prisma.sql`
          INSERT INTO api_request_counts (tenant_id, day, count)
          SELECT c.tenant_id, DATE '1970-01-01' + c.day, c.count
          FROM unnest(${tenants}::int[], ${days}::int[], ${counts}::bigint[])
               AS c(tenant_id, day, count)
          JOIN tenants t ON t.id = c.tenant_id
          ORDER BY c.tenant_id, c.day
          ON CONFLICT (tenant_id, day) DO UPDATE
            SET count = api_request_counts.count + EXCLUDED.count`,
      );
      return true;
    } catch (error) {
      for (const [key, n] of batch) this.pending.set(key, (this.pending.get(key) ?? 0) + n);
      log.warn("writing the API request counts failed; kept for the next flush", {
        error,
        unwritten: this.unwritten(),
      });
      return false;
    }
  }

  /** Flushes every `intervalMs` until `stop` (the timer never keeps the process alive). */
  start(intervalMs = FLUSH_INTERVAL_MS) {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left (a few tries: the process is about to end). */
  async stop(tries = 3) {
    clearInterval(this.timer);
    this.timer = undefined;
    for (let i = 0; i < tries; i++) {
      if (await this.flush()) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    log.error("API request counts lost at shutdown", { unwritten: this.unwritten() });
  }
}

const globalForCounter = globalThis as unknown as { __apiRequestCounter?: ApiRequestCounter };

/**
 * The process's counter, flushing every `FLUSH_INTERVAL_MS` once the first request is counted,
 * and at the process's orderly stop (`onShutdown`, run by scripts/web-server.ts after the last
 * request was answered). On `globalThis`: the web process loads the router twice (Next.js's
 * bundle and, while the console builds, scripts/web-starting.ts), and both count into one.
 */
export function apiRequestCounter(): ApiRequestCounter {
  if (!globalForCounter.__apiRequestCounter) {
    const counter = new ApiRequestCounter();
    counter.start();
    onShutdown("api-request-counts", () => counter.stop());
    globalForCounter.__apiRequestCounter = counter;
  }
  return globalForCounter.__apiRequestCounter;
}

/**
 * The /v1 requests of a team's projects by month ("YYYY-MM", UTC) from `since` (a month's first
 * day) on, as written so far. The sandbox's are kept but not included, as in the rest of the
 * usage. Reads the `(tenant_id, day)` key for each of the team's projects.
 */
export async function apiRequestsByMonth(
  db: DbTx,
  teamId: number,
  since: Date,
): Promise<Map<string, number>> {
  const rows = await db.$queryRaw<{ month: string; requests: bigint }[]>`
    SELECT to_char(date_trunc('month', c.day), 'YYYY-MM') AS month, sum(c.count)::bigint AS requests
    FROM tenants n JOIN api_request_counts c ON c.tenant_id = n.id
    WHERE n.team_id = ${teamId} AND n.kind = 'project' AND c.day >= ${since}::date
    GROUP BY 1`;
  return new Map(rows.map((r) => [r.month, Number(r.requests)]));
}
