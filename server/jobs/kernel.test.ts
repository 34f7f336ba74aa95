import pg from "pg";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { waitUntil } from "../../testing/ocpp";
import { claimJobs } from "./claim";
import { defineJob, stepBackoff } from "./define-job";
import { enqueue, JOBS_CHANNEL } from "./enqueue";
import { recordOutcome } from "./external-call";
import { runJobNow, runJobsNow } from "./run-now";
import { startJobRunner } from "./runner";
import { JOB_RUNS_TABLE, jobRuns, recordRun } from "../../testing/jobs";
import { waitForJob } from "./wait";

beforeAll(async () => {
  await db().$executeRawUnsafe(JOB_RUNS_TABLE);
});

const job = (id: string) => db().job.findUniqueOrThrow({ where: { id } });
const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
const noop = (id: string) =>
  defineJob({ id, payload: z.object({ n: z.number() }), handler: () => Promise.resolve() });

describe("enqueue", () => {
  const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
  const heard: string[] = [];
  beforeAll(async () => {
    await listener.connect();
    await listener.query(`LISTEN ${JOBS_CHANNEL}`);
    listener.on("notification", (m) => heard.push(m.payload ?? ""));
  });
  afterAll(() => listener.end());

  it("inside a transaction that rolls back leaves no job and wakes no runner; committed, it does both", async () => {
    const def = noop("test.rollback");
    let id = "";
    await expect(
      db().$transaction(async (tx) => {
        id = await enqueue(tx, def, { n: 1 });
        expect(await tx.job.count({ where: { id } })).toBe(1); // there inside the transaction
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await db().job.count({ where: { id } })).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toEqual([]);
    const committed = await db().$transaction((tx) => enqueue(tx, def, { n: 2 }));
    expect(await job(committed)).toMatchObject({ name: "test.rollback", status: "queued" });
    await waitUntil(() => heard.length === 1, 2_000);
    expect(heard).toEqual(["default"]);
  });

  it("a key gives a deterministic id: enqueuing it again is a no-op, even once the job has run", async () => {
    const def = noop("test.keyed");
    const first = await enqueue(db(), def, { n: 1 }, { key: "order-7" });
    expect(first).toBe("test.keyed:order-7");
    expect(await runJobsNow({ db: db(), definitions: [def] })).toBe(1);
    expect(await enqueue(db(), def, { n: 2 }, { key: "order-7" })).toBe(first);
    expect(await db().job.findMany({ where: { name: "test.keyed" } })).toMatchObject([
      { id: first, status: "succeeded", payload: { n: 1 } },
    ]);
  });

  it("refuses a payload its definition's schema refuses", async () => {
    const def = noop("test.schema");
    await expect(enqueue(db(), def, { n: "one" } as unknown as { n: number })).rejects.toThrow();
    expect(await db().job.count({ where: { name: "test.schema" } })).toBe(0);
  });
});

describe("retries", () => {
  it("a job that keeps failing is retried on its backoff (run_at steps) and ends failed with the last error", async () => {
    const failures: string[] = [];
    const def = defineJob({
      id: "test.flaky",
      payload: z.object({}),
      retry: { maxAttempts: 4, backoff: stepBackoff([1_000, 5_000], 60_000) },
      handler: (_p, ctx) => Promise.reject(new Error(`boom ${ctx.attempt}`)),
      // in the transaction that fails the job: what it writes commits with the failure
      onFailed: async (tx, _p, failure) => {
        failures.push(`${failure.attempt}: ${failure.error}`);
        await tx.$executeRaw`INSERT INTO job_runs (job_id, runner, attempt, note, started_at)
                             VALUES ('test.flaky', 'onFailed', ${failure.attempt}, ${failure.error}, now())`;
      },
    });
    const t0 = new Date("2026-11-23T10:00:00.000Z");
    const id = await enqueue(db(), def, {}, { runAt: t0 });
    const run = (now: Date) => runJobsNow({ db: db(), definitions: [def], now });
    expect(await run(at(t0, -1))).toBe(0); // not before it is due

    let now = t0;
    const steps: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await run(now)).toBe(1);
      const row = await job(id);
      expect(row).toMatchObject({ status: "queued", attempt, lastError: `Error: boom ${attempt}` });
      steps.push(row.runAt.getTime() - now.getTime());
      expect(await run(at(row.runAt, -1))).toBe(0);
      now = row.runAt;
    }
    expect(steps).toEqual([1_000, 5_000, 60_000]);
    expect(await run(now)).toBe(1);
    expect(await job(id)).toMatchObject({
      status: "failed",
      attempt: 4,
      lastError: "Error: boom 4",
      finishedAt: now,
      leaseUntil: null,
      lockedBy: null,
    });
    expect(failures).toEqual(["4: Error: boom 4"]);
    expect((await jobRuns(db())).filter((r) => r.runner === "onFailed")).toMatchObject([
      { job_id: "test.flaky", attempt: 4, note: "Error: boom 4" },
    ]);
    expect(await run(at(now, 86_400_000))).toBe(0);
  });

  it("a job whose last attempt's runner died ends failed without running again, and onFailed records it", async () => {
    const ran: number[] = [];
    const failures: string[] = [];
    const def = defineJob({
      id: "test.last-gasp",
      payload: z.object({}),
      leaseMs: 1_000,
      retry: { maxAttempts: 1, backoff: () => 0 },
      handler: (_p, ctx) => Promise.resolve(void ran.push(ctx.attempt)),
      onFailed: (_tx, _p, failure) => Promise.resolve(void failures.push(failure.error)),
    });
    const t0 = new Date("2026-11-23T10:00:00.000Z");
    const id = await enqueue(db(), def, {}, { runAt: t0 });
    // A runner claims it and dies before running it.
    const [claimed] = await claimJobs(db(), {
      runnerId: "dead",
      definitions: [def],
      queues: ["default"],
      now: t0,
      limit: 10,
    });
    expect(claimed).toMatchObject({ id, attempt: 1, leaseUntil: at(t0, 1_000) });
    expect(await runJobsNow({ db: db(), definitions: [def], now: at(t0, 999) })).toBe(0);
    expect(await runJobsNow({ db: db(), definitions: [def], now: at(t0, 1_000) })).toBe(1);
    expect(ran).toEqual([]);
    expect(await job(id)).toMatchObject({ status: "failed", attempt: 2 });
    expect(failures).toEqual(["LeaseLapsed: attempt 1 of 1 never recorded an outcome"]);
  });
});

describe("fencing", () => {
  it("a handler's fenced write after its lease was taken over is refused; the new holder's goes through", async () => {
    let releaseFirst!: () => void;
    const firstMayWrite = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstStarted!: () => void;
    const started = new Promise<void>((resolve) => (firstStarted = resolve));
    const verdicts: Record<string, unknown> = {};
    const def = defineJob({
      id: "test.fenced",
      payload: z.object({}),
      leaseMs: 1_000,
      retry: { maxAttempts: 3, backoff: () => 0 },
      handler: async (_p, ctx) => {
        if (ctx.runnerId === "first") {
          firstStarted();
          await firstMayWrite;
        }
        verdicts[ctx.runnerId] = await recordOutcome(ctx.db, ctx, { ok: true }, (tx) =>
          tx.$executeRaw`INSERT INTO job_runs (job_id, runner, attempt, started_at)
                         VALUES (${ctx.jobId}, ${ctx.runnerId}, ${ctx.attempt}, now())`.then(
            () => {},
          ),
        );
        verdicts[`${ctx.runnerId}.holds`] = await ctx.db.$transaction((tx) => ctx.holds(tx));
      },
    });
    const t0 = new Date("2026-11-23T10:00:00.000Z");
    const id = await enqueue(db(), def, {}, { runAt: t0 });
    const first = runJobsNow({ db: db(), definitions: [def], now: t0, runnerId: "first" });
    await started;
    // The first runner stalls past its lease; a second claims the job and finishes it.
    expect(
      await runJobsNow({ db: db(), definitions: [def], now: at(t0, 1_000), runnerId: "second" }),
    ).toBe(1);
    releaseFirst();
    await first;
    expect(verdicts).toEqual({
      first: null,
      "first.holds": false,
      second: { status: "succeeded", finishedAt: at(t0, 1_000) },
      "second.holds": false, // settled: nobody holds a finished job
    });
    const runs = (await jobRuns(db())).filter((r) => r.job_id === id);
    expect(runs.map((r) => [r.runner, r.attempt])).toEqual([["second", 2]]);
    expect(await job(id)).toMatchObject({ status: "succeeded", attempt: 2 });
  });
});

describe("runners", () => {
  it("a runner is woken by the commit's NOTIFY, long before its poll, and serves only its queues", async () => {
    const seen: string[] = [];
    const def = defineJob({
      id: "test.wake",
      payload: z.object({ n: z.number() }),
      handler: (p) => Promise.resolve(void seen.push(`default:${p.n}`)),
    });
    const elsewhere = defineJob({
      id: "test.elsewhere",
      queue: "gateway:gw_test",
      payload: z.object({ n: z.number() }),
      handler: (p) => Promise.resolve(void seen.push(`gateway:${p.n}`)),
    });
    const runner = await startJobRunner({
      db: db(),
      databaseUrl: process.env.DATABASE_URL!,
      definitions: [def, elsewhere],
      pollMs: 60_000,
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // its first look found nothing
      const committed = Date.now();
      await db().$transaction(async (tx) => {
        await enqueue(tx, elsewhere, { n: 1 });
        await enqueue(tx, def, { n: 1 });
      });
      await waitUntil(() => seen.length > 0, 5_000);
      expect(Date.now() - committed).toBeLessThan(2_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toEqual(["default:1"]);
    } finally {
      await runner.stop();
    }
    expect(
      await runJobsNow({ db: db(), definitions: [elsewhere], queues: ["gateway:gw_test"] }),
    ).toBe(1);
    expect(seen).toEqual(["default:1", "gateway:1"]);
  });

  it("two runners with separate pools never run one job twice or at once: 500 jobs, each run exactly once", async () => {
    const { PrismaClient } = await import("../generated/prisma/client");
    const { PrismaPg } = await import("@prisma/adapter-pg");
    const pools = [0, 1].map(
      () =>
        new PrismaClient({
          adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL!, max: 5 }),
        }),
    );
    const def = defineJob({
      id: "test.once",
      payload: z.object({ n: z.number() }),
      handler: async ({ n }, ctx) => {
        const startedAt = new Date();
        await new Promise((resolve) => setTimeout(resolve, n % 3));
        await recordRun(ctx.db, {
          jobId: ctx.jobId,
          runner: ctx.runnerId,
          attempt: ctx.attempt,
          startedAt,
        });
      },
    });
    const runners = await Promise.all(
      pools.map((pool) =>
        startJobRunner({
          db: pool,
          databaseUrl: process.env.DATABASE_URL!,
          definitions: [def],
          concurrency: 8,
          pollMs: 50,
        }),
      ),
    );
    try {
      for (let i = 0; i < 500; i += 50)
        await db().$transaction(async (tx) => {
          for (let n = i; n < i + 50; n++) await enqueue(tx, def, { n });
        });
      await waitUntil(
        async () =>
          (await db().job.count({ where: { name: "test.once", status: "succeeded" } })) === 500,
        60_000,
      );
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
      await Promise.all(pools.map((p) => p.$disconnect()));
    }
    const jobs = await db().job.findMany({ where: { name: "test.once" } });
    const runs = (await jobRuns(db())).filter((r) => jobs.some((j) => j.id === r.job_id));
    expect(runs).toHaveLength(500);
    expect(new Set(runs.map((r) => r.job_id)).size).toBe(500);
    expect(jobs.every((j) => j.attempt === 1)).toBe(true);
    const perRunner = new Map<string, number>();
    for (const r of runs) perRunner.set(r.runner, (perRunner.get(r.runner) ?? 0) + 1);
    expect([...perRunner.keys()].sort()).toEqual(runners.map((r) => r.id).sort()); // both took part
  });
});

describe("waiting for an outcome after commit", () => {
  it("the committing process may run the job at once through the same claim; waitForJob reads its outcome", async () => {
    const ran: string[] = [];
    const def = defineJob({
      id: "test.fast-path",
      payload: z.object({}),
      handler: (_p, ctx) => Promise.resolve(void ran.push(ctx.runnerId)),
    });
    const id = await db().$transaction((tx) => enqueue(tx, def, {}));
    const pending = waitForJob(db(), id, 3_000);
    expect(
      await runJobNow({ db: db(), definitions: [def], jobId: id, runnerId: "web" }),
    ).toMatchObject({
      status: "succeeded",
    });
    expect(await pending).toMatchObject({ id, status: "succeeded", attempt: 1 });
    // done: nobody claims it again
    expect(await runJobNow({ db: db(), definitions: [def], jobId: id })).toBeNull();
    expect(ran).toEqual(["web"]);
    // a job that does not finish in time: its state as it stands
    const later = await enqueue(db(), def, {}, { runAt: new Date(Date.now() + 60_000) });
    expect(await waitForJob(db(), later, 100)).toMatchObject({ status: "queued" });
    expect(await runJobNow({ db: db(), definitions: [def], jobId: later })).toBeNull(); // not due
  });
});
