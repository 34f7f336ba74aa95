import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { db, type DbTx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { claimJobs } from "./claim";
import { defineJob } from "./define-job";
import { enqueue } from "./enqueue";
import { settleBatcher, settleJobs, type SettleRequest } from "./settle-batch";

const def = defineJob({
  id: "test.batch",
  payload: z.object({ n: z.number() }),
  handler: () => Promise.resolve(),
});

beforeAll(async () => {
  await db().$executeRawUnsafe(
    "CREATE TABLE IF NOT EXISTS batch_notes (job_id text NOT NULL, note text NOT NULL)",
  );
});

async function claimed(count: number) {
  for (let n = 0; n < count; n++) await enqueue(db(), def, { n });
  const now = new Date(Date.now() + 1_000); // past the database clock's run_at
  return claimJobs(db(), {
    runnerId: "r1",
    definitions: [def],
    queues: ["default"],
    now,
    limit: count,
  });
}

/** Succeeds the job and notes it, through CTEs named by `cte`, as a delivery's settle does. */
const noting = (job: { id: string; attempt: number }, note: string): SettleRequest => ({
  jobId: job.id,
  attempt: job.attempt,
  next: { status: "succeeded", finishedAt: new Date() },
  writes: (cte) => Prisma.sql`
    ${cte("noted")} AS (
      INSERT INTO batch_notes (job_id, note)
      SELECT id, ${note} FROM ${cte("job")})`,
});

const notes = async () =>
  (await db().$queryRaw<{ note: string }[]>`SELECT note FROM batch_notes ORDER BY note`).map(
    (r) => r.note,
  );

describe("settleJobs", () => {
  it("settles several jobs in one statement, each fenced on its own", async () => {
    await db().$executeRawUnsafe("TRUNCATE batch_notes");
    const [a, b, c] = await claimed(3);
    // c's lease lapsed and another runner claimed it: attempt c.attempt no longer holds it
    await db().job.update({ where: { id: c!.id }, data: { attempt: { increment: 1 } } });
    const settled = await settleJobs(db(), [noting(a!, "a"), noting(b!, "b"), noting(c!, "c")]);
    expect(settled).toEqual([true, true, false]);
    expect(await notes()).toEqual(["a", "b"]);
    const rows = await db().job.findMany({ where: { id: { in: [a!.id, b!.id, c!.id] } } });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      [a!.id]: "succeeded",
      [b!.id]: "succeeded",
      [c!.id]: "running",
    });
  });
});

describe("settleBatcher", () => {
  it("sends settles that arrive while a statement is in flight together in the next one", async () => {
    await db().$executeRawUnsafe("TRUNCATE batch_notes");
    const jobs = await claimed(7);
    let statements = 0;
    const counting = new Proxy(db(), {
      get(target, property, receiver) {
        if (property === "$queryRaw") statements++;
        return Reflect.get(target, property, receiver) as unknown;
      },
    }) as DbTx;
    const batcher = settleBatcher(counting);
    const results = await Promise.all(jobs.map((j, i) => batcher.settle(noting(j, `n${i}`))));
    expect(results).toEqual(jobs.map(() => true));
    expect(await notes()).toEqual(jobs.map((_, i) => `n${i}`));
    expect(statements).toBe(2); // the first alone, the six that came meanwhile together
  });

  it("keeps one job's failing writes its own: the others of its batch still settle", async () => {
    await db().$executeRawUnsafe("TRUNCATE batch_notes");
    const [a, b, c] = await claimed(3);
    const failing: SettleRequest = {
      ...noting(b!, "b"),
      writes: (cte) => Prisma.sql`${cte("noted")} AS (INSERT INTO batch_notes (job_id, note)
        SELECT id, NULL FROM ${cte("job")})`, // note is NOT NULL
    };
    const batcher = settleBatcher(db());
    const results = await Promise.allSettled([
      batcher.settle(noting(a!, "a")),
      batcher.settle(failing),
      batcher.settle(noting(c!, "c")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await notes()).toEqual(["a", "c"]);
    expect((await db().job.findUniqueOrThrow({ where: { id: b!.id } })).status).toBe("running");
  });
});
