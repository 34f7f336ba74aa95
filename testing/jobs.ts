/**
 * Job definitions for the kernel's own tests, shared by the test process and the runner child
 * processes it starts (./job-runner-child.ts). Each records its runs in `job_runs`, a table the
 * tests create in their own database.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { z } from "zod";
import type { Db } from "../server/db";
import { paymentAttemptJob } from "../server/payments/payment-attempt-job";
import { teamBillingCallJob } from "../server/team-billing/billing-calls";
import { defineCronJob, defineJob } from "../server/jobs/define-job";

export const JOB_RUNS_TABLE = `
  CREATE TABLE IF NOT EXISTS job_runs (
    job_id text NOT NULL, runner text NOT NULL, attempt int NOT NULL, note text,
    started_at timestamptz(3) NOT NULL, finished_at timestamptz(3) NOT NULL DEFAULT clock_timestamp())`;

export type JobRun = {
  job_id: string;
  runner: string;
  attempt: number;
  note: string | null;
  started_at: Date;
  finished_at: Date;
};

export function recordRun(
  db: Db,
  run: { jobId: string; runner: string; attempt: number; note?: string; startedAt: Date },
) {
  return db.$executeRaw`
    INSERT INTO job_runs (job_id, runner, attempt, note, started_at)
    VALUES (${run.jobId}, ${run.runner}, ${run.attempt}, ${run.note ?? null}, ${run.startedAt})`;
}

export const jobRuns = (db: Db) =>
  db.$queryRaw<JobRun[]>`SELECT * FROM job_runs ORDER BY started_at, job_id`;

/** Records its run after a short pause (so runs of different jobs overlap in time). */
export const recordingJob = defineJob({
  id: "test.record",
  payload: z.object({ n: z.number() }),
  handler: async ({ n }, ctx) => {
    const startedAt = new Date();
    await new Promise((resolve) => setTimeout(resolve, n % 4));
    await recordRun(ctx.db, {
      jobId: ctx.jobId,
      runner: ctx.runnerId,
      attempt: ctx.attempt,
      startedAt,
    });
  },
});

/** Records that it started, then never finishes: its runner is killed mid-job. */
export const blockingJob = defineJob({
  id: "test.block",
  payload: z.object({}),
  leaseMs: 2_000,
  retry: { maxAttempts: 3, backoff: () => 0 },
  handler: async (_payload, ctx) => {
    await recordRun(ctx.db, {
      jobId: ctx.jobId,
      runner: ctx.runnerId,
      attempt: ctx.attempt,
      note: "started",
      startedAt: new Date(),
    });
    await new Promise(() => {});
  },
});

/** Once per one-second slot, across every runner. */
export const cronProbeJob = defineCronJob({
  id: "test.cron-probe",
  everyMs: 1_000,
  handler: async (slot, ctx) => {
    await recordRun(ctx.db, {
      jobId: ctx.jobId,
      runner: ctx.runnerId,
      attempt: ctx.attempt,
      note: slot.toISOString(),
      startedAt: new Date(),
    });
  },
});

export const CHILD_DEFINITIONS = {
  record: [recordingJob],
  block: [blockingJob],
  cron: [cronProbeJob],
  /** the payments journal's calls, to the processors the environment configures */
  payments: [paymentAttemptJob],
  /** team billing's calls to the platform's Stripe account, as the environment configures it */
  teamBilling: [teamBillingCallJob],
};

/**
 * Starts a job runner in a child process (a real one: it can be SIGKILLed) serving `kind`'s
 * definitions against DATABASE_URL (plus `env`, e.g. a processor's settings); resolves with its
 * runner id once it is running.
 */
export async function spawnRunner(
  kind: keyof typeof CHILD_DEFINITIONS,
  env: Record<string, string> = {},
) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--conditions=react-server",
      "--import",
      "tsx",
      path.join(import.meta.dirname, "job-runner-child.ts"),
      kind,
    ],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const runnerId = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`runner exited (${code}) before it was ready`)));
    child.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    runnerId,
    kill: async (signal: NodeJS.Signals) => {
      child.kill(signal);
      await exited;
    },
  };
}
