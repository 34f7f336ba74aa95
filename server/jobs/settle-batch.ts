import { queryRows, type DbTx } from "../db";
import { Prisma } from "../generated/prisma/client";
import type { Settled } from "./define-job";
import { settleStatement } from "./settle";

/** Names one job's CTEs inside a statement that may settle several jobs. */
export type CteNames = (name: string) => Prisma.Sql;

export type SettleRequest = {
  jobId: string;
  attempt: number;
  next: Settled;
  /** the domain's writes, their CTEs named through `cte`; `cte("job")` is the fenced update */
  writes: (cte: CteNames) => Prisma.Sql;
};

/** Jobs settled in one statement at most: each brings a few dozen bind parameters. */
const MAX_BATCH = 100;

function cteNames(index: number): CteNames {
  return (name) => {
    if (!/^[a-z_]+$/.test(name)) throw new Error(`not a CTE name: ${name}`);
    return Prisma.raw(`${name}_${index}`);
  };
}

/**
 * Settles jobs with their domain writes, several in one statement: each job's fenced update
 * (`settleStatement`) and its writes, side by side as CTEs. Each job stays fenced on its own (a
 * job fenced out writes nothing, the others still settle) and each job's writes commit with its
 * new state; the statement commits all of them at once. Resolves each job's own result: true
 * when its attempt still held it.
 */
export async function settleJobs(db: DbTx, requests: readonly SettleRequest[]): Promise<boolean[]> {
  const parts = requests.map((r, i) => {
    const cte = cteNames(i);
    return Prisma.sql`${cte("job")} AS (${settleStatement(r.jobId, r.attempt, r.next)}), ${r.writes(cte)}`;
  });
  const counts = requests.map(
    (_, i) => Prisma.sql`(SELECT count(*) FROM ${cteNames(i)("job")})::int`,
  );
  const rows = await queryRows<{ settled: number[] }>(
    db,
    Prisma.sql`
      WITH ${Prisma.join(parts, ", ")}
      SELECT ARRAY[${Prisma.join(counts, ", ")}] AS settled`,
  );
  const settled = rows[0]?.settled ?? [];
  return requests.map((_, i) => settled[i] === 1);
}

/**
 * Group settling for one runner: the first settle goes out at once; those that come while a
 * statement is in flight wait for it and go out together in the next one. So an idle runner
 * settles as before (one statement per job) and a busy one makes one statement, one commit, per
 * batch instead of per job: fewer round trips and WAL flushes as the load grows, with no timer.
 * A batch that fails as a whole is retried job by job, so one job's error stays its own.
 */
export function settleBatcher(db: DbTx) {
  type Pending = SettleRequest & {
    resolve: (settled: boolean) => void;
    reject: (error: unknown) => void;
  };
  let queue: Pending[] = [];
  let inFlight = false;

  async function flush() {
    if (inFlight || queue.length === 0) return;
    inFlight = true;
    const batch = queue.slice(0, MAX_BATCH);
    queue = queue.slice(MAX_BATCH);
    try {
      const results = await settleJobs(db, batch);
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else
        await Promise.all(
          batch.map((p) => settleJobs(db, [p]).then(([settled]) => p.resolve(settled!), p.reject)),
        );
    } finally {
      inFlight = false;
      void flush();
    }
  }

  return {
    settle(request: SettleRequest): Promise<boolean> {
      return new Promise((resolve, reject) => {
        queue.push({ ...request, resolve, reject });
        void flush();
      });
    },
  };
}

export type SettleBatcher = ReturnType<typeof settleBatcher>;
