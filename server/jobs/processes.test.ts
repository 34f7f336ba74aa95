import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { waitUntil } from "../../testing/ocpp";
import { enqueue } from "./enqueue";
import { startJobRunner } from "./runner";
import {
  blockingJob,
  cronProbeJob,
  JOB_RUNS_TABLE,
  jobRuns,
  recordingJob,
  recordRun,
  spawnRunner,
} from "../../testing/jobs";
import { defineJob } from "./define-job";

// Runners in real child processes (node --conditions=react-server --import tsx), against this
// file's database.
const children: Awaited<ReturnType<typeof spawnRunner>>[] = [];
const spawned = async (kind: Parameters<typeof spawnRunner>[0]) => {
  const child = await spawnRunner(kind);
  children.push(child);
  return child;
};
beforeAll(async () => {
  await db().$executeRawUnsafe(JOB_RUNS_TABLE);
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill("SIGKILL")));
});

describe("runner processes", () => {
  it("a runner SIGKILLed mid-job leaves the job to be claimed again, after its lease, by another runner", async () => {
    const dying = await spawned("block");
    const id = await enqueue(db(), blockingJob, {});
    await waitUntil(async () => (await jobRuns(db())).some((r) => r.job_id === id), 10_000);
    const claimed = await db().job.findUniqueOrThrow({ where: { id } });
    expect(claimed).toMatchObject({ status: "running", attempt: 1, lockedBy: dying.runnerId });
    await dying.kill("SIGKILL");

    // Another runner (this process; same job id, a handler that finishes) polls every 100 ms.
    const takeover = defineJob({
      ...blockingJob,
      handler: async (_p, ctx) => {
        await recordRun(ctx.db, {
          jobId: ctx.jobId,
          runner: ctx.runnerId,
          attempt: ctx.attempt,
          note: "finished",
          startedAt: new Date(),
        });
      },
    });
    const runner = await startJobRunner({
      db: db(),
      databaseUrl: process.env.DATABASE_URL!,
      definitions: [takeover],
      pollMs: 100,
    });
    try {
      await waitUntil(
        async () => (await db().job.findUniqueOrThrow({ where: { id } })).status === "succeeded",
        10_000,
      );
    } finally {
      await runner.stop();
    }
    const runs = (await jobRuns(db())).filter((r) => r.job_id === id);
    expect(runs.map((r) => [r.runner, r.attempt, r.note])).toEqual([
      [dying.runnerId, 1, "started"],
      [runner.id, 2, "finished"],
    ]);
    // not before the dead runner's lease lapsed
    expect(runs[1]!.started_at.getTime()).toBeGreaterThanOrEqual(claimed.leaseUntil!.getTime());
    expect(await db().job.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: "succeeded",
      attempt: 2,
    });
  });

  it("two runner processes run 500 jobs, each exactly once", async () => {
    const [a, b] = await Promise.all([spawned("record"), spawned("record")]);
    for (let i = 0; i < 500; i += 100)
      await db().$transaction(async (tx) => {
        for (let n = i; n < i + 100; n++) await enqueue(tx, recordingJob, { n });
      });
    await waitUntil(
      async () =>
        (await db().job.count({ where: { name: recordingJob.id, status: "succeeded" } })) === 500,
      60_000,
    );
    const runs = (await jobRuns(db())).filter(
      (r) => r.runner === a.runnerId || r.runner === b.runnerId,
    );
    expect(runs).toHaveLength(500);
    expect(new Set(runs.map((r) => r.job_id)).size).toBe(500);
    expect(runs.every((r) => r.attempt === 1)).toBe(true);
    expect(runs.some((r) => r.runner === a.runnerId)).toBe(true);
    expect(runs.some((r) => r.runner === b.runnerId)).toBe(true);
    await Promise.all([a.kill("SIGTERM"), b.kill("SIGTERM")]);
  });

  it("a cron definition runs once per slot across two runner processes", async () => {
    const [a, b] = await Promise.all([spawned("cron"), spawned("cron")]);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    await Promise.all([a.kill("SIGTERM"), b.kill("SIGTERM")]);
    const runs = (await jobRuns(db())).filter((r) =>
      r.job_id.startsWith(`cron:${cronProbeJob.id}:`),
    );
    const slots = runs.map((r) => r.note!);
    expect(slots.length).toBeGreaterThanOrEqual(3);
    expect(new Set(slots).size).toBe(slots.length); // no slot twice
    for (const r of runs) expect(r.job_id).toBe(`cron:${cronProbeJob.id}:${r.note}`);
    for (const slot of slots) expect(Date.parse(slot) % 1_000).toBe(0); // slots from the epoch
    // Every run is its slot's one job; a slot inserted just before the runners stopped may be
    // left unrun, but none succeeded without its run.
    const jobs = await db().job.findMany({ where: { name: cronProbeJob.id } });
    const ids = new Set(jobs.map((j) => j.id));
    for (const r of runs) expect(ids.has(r.job_id)).toBe(true);
    const succeeded = jobs.filter((j) => j.status === "succeeded").map((j) => j.id);
    expect(succeeded.sort()).toEqual(runs.map((r) => r.job_id).sort());
  });
});
