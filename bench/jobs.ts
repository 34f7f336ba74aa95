/**
 * The job kernel: no-op jobs claimed and completed per second with 1 and 2 runner processes
 * (a backlog drained from the moment the runners are up), and commit-to-completion latency of
 * jobs enqueued one at a time. Run: `npx tsx bench/jobs.ts`. Writes bench/results/jobs.json.
 */
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { latency, machine, scratchDatabase, writeResult } from "./harness";

const BACKLOG = Number(process.env.BENCH_JOBS ?? 20_000);
const database = await scratchDatabase("jobs");
const { db, closeDb } = await import("../server/db");
const { enqueue } = await import("../server/jobs/enqueue");
const { noopJob } = await import("./job-definitions");

const succeeded = () => db().job.count({ where: { status: "succeeded" } });

async function runners(count: number) {
  const children: ChildProcess[] = [];
  await Promise.all(
    Array.from({ length: count }, () => {
      const child = spawn(
        "node_modules/.bin/tsx",
        ["--conditions=react-server", "bench/job-runner-process.ts", "noop"],
        { env: process.env, stdio: ["ignore", "pipe", "inherit"] },
      );
      children.push(child);
      return new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    }),
  );
  return async () => {
    await Promise.all(
      children.map((c) => new Promise((resolve) => (c.once("exit", resolve), c.kill("SIGTERM")))),
    );
  };
}

async function backlog(n: number) {
  // Jobs due a minute from now, made due at once when the runners are up: the clock starts then.
  const later = new Date(Date.now() + 60_000);
  for (let i = 0; i < n; i += 1_000)
    await db().$transaction(async (tx) => {
      for (let j = i; j < Math.min(n, i + 1_000); j++)
        await enqueue(tx, noopJob, { n: j }, { runAt: later });
    });
}

const loadAtStart = os.loadavg();
try {
  const throughput: Record<string, unknown> = {};
  for (const count of [1, 2]) {
    const before = await succeeded();
    await backlog(BACKLOG);
    const stop = await runners(count);
    const started = performance.now();
    await db().$executeRaw`UPDATE jobs SET run_at = now() WHERE status = 'queued'`;
    while ((await succeeded()) - before < BACKLOG) await new Promise((r) => setTimeout(r, 50));
    const seconds = (performance.now() - started) / 1000;
    await stop();
    throughput[`${count}_runner${count > 1 ? "s" : ""}`] = {
      jobs: BACKLOG,
      seconds: Math.round(seconds * 100) / 100,
      per_second: Math.round(BACKLOG / seconds),
    };
  }

  // latency: one job at a time, committed while one runner waits
  const stop = await runners(1);
  const latencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    const id = await db().$transaction((tx) => enqueue(tx, noopJob, { n: i }));
    let row = await db().job.findUniqueOrThrow({ where: { id } });
    while (row.status !== "succeeded") {
      await new Promise((r) => setTimeout(r, 2));
      row = await db().job.findUniqueOrThrow({ where: { id } });
    }
    latencies.push(row.finishedAt!.getTime() - row.createdAt.getTime());
    await new Promise((r) => setTimeout(r, 20));
  }
  await stop();
  const result = {
    benchmark: "jobs",
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    throughput,
    commit_to_completion_ms: {
      samples: latencies.length,
      ...latency(latencies),
    },
  };
  writeResult("jobs", result);
} finally {
  await closeDb();
  await database.stop();
}
