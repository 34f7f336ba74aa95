/**
 * Webhook delivery: deliveries per second to a local receiver with 1 and 2 worker processes (job
 * runners serving the delivery job), and event-to-first-attempt latency p50/p99. Run:
 * `npx tsx bench/webhooks.ts`. Writes bench/results/webhooks.json.
 */
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { aReceiver } from "../testing/webhooks";
import { cpuMsByProcess } from "./process-cpu";

import { latency, machine, scratchDatabase, writeResult } from "./harness";

const BATCH = Number(process.env.BENCH_DELIVERIES ?? 2000);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? "1,2,4").split(",").map(Number);

/** Which process a CPU figure belongs to: a worker, PostgreSQL, or this one (the receiver). */
function processName(pid: number, commandLine: string) {
  if (pid === process.pid) return "receiver_and_bench";
  if (/postgres/.test(commandLine)) return "postgres";
  if (/job-runner-process/.test(commandLine)) return "workers";
  return "other";
}
const database = await scratchDatabase("webhooks", { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true" });
const { db, closeDb } = await import("../server/db");
const { appendEvent } = await import("../server/events/append-event");
const { seal } = await import("../server/lib/secret-box");

// answers as receivers commonly do: a short body, the connection kept alive
const receiver = await aReceiver(() => 200, { bodyBytes: 2 });
const arrivals = new Map<string, number>();

async function workers(count: number) {
  const children: ChildProcess[] = [];
  await Promise.all(
    Array.from({ length: count }, () => {
      // BENCH_PROFILE=<dir>: each worker writes a CPU profile there when it exits
      const profile = process.env.BENCH_PROFILE
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`, "--import", "tsx"]
        : null;
      const child = spawn(
        profile ? process.execPath : "node_modules/.bin/tsx",
        [
          ...(profile ?? []),
          "--conditions=react-server",
          "bench/job-runner-process.ts",
          "webhooks",
        ],
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

const loadAtStart = os.loadavg();
try {
  const team = await db().team.create({ data: { name: "Bench" } });
  const tenant = await db().tenant.create({ data: { teamId: team.id, name: "Webhooks" } });
  await db().webhookEndpoint.create({
    data: {
      id: "whk_bench",
      tenantId: tenant.id,
      url: receiver.url,
      events: ["station.connected"],
      secretEncrypted: seal("whsec_bench"),
      apiVersion: "2026-10-15",
    },
  });
  const enqueue = async (n: number) => {
    for (let i = 0; i < n; i += 200) {
      // Setup, not measured: a busy machine must not fail it on Prisma's default 5 s timeout.
      await db().$transaction(
        async (tx) => {
          for (let j = i; j < Math.min(n, i + 200); j++)
            await appendEvent({
              db: tx,
              tenantId: tenant.id,
              type: "station.connected",
              resourceId: j,
              data: { j },
            });
        },
        { timeout: 120_000 },
      );
    }
  };
  const acknowledged = () => db().webhookDelivery.count({ where: { status: "acknowledged" } });
  const throughput: Record<string, unknown> = {};
  for (const count of WORKER_COUNTS) {
    const before = await acknowledged();
    await enqueue(BATCH);
    const stop = await workers(count);
    const started = performance.now(); // from the moment the workers are up
    const cpuAtStart = cpuMsByProcess(processName);
    while ((await acknowledged()) - before < BATCH) await new Promise((r) => setTimeout(r, 50));
    const seconds = (performance.now() - started) / 1000;
    // read before the workers exit: their time then moves to the parent's reaped time
    const cpuAtEnd = cpuMsByProcess(processName);
    await stop();
    const cpuMs = (name: string) => (cpuAtEnd?.[name] ?? 0) - (cpuAtStart?.[name] ?? 0);
    const perDelivery = (ms: number) => Math.round((ms / BATCH) * 100) / 100;
    throughput[`${count}_worker${count > 1 ? "s" : ""}`] = {
      deliveries: BATCH,
      seconds: Math.round(seconds * 100) / 100,
      per_second: Math.round(BATCH / seconds),
      // workers, PostgreSQL, receiver and this loop: steadier than the rate on a shared machine
      cpu_ms_per_delivery:
        cpuAtStart === null || cpuAtEnd === null
          ? null
          : {
              total: perDelivery(Object.keys(cpuAtEnd).reduce((sum, n) => sum + cpuMs(n), 0)),
              workers: perDelivery(cpuMs("workers")),
              postgres: perDelivery(cpuMs("postgres")),
              receiver_and_bench: perDelivery(cpuMs("receiver_and_bench")),
            },
    };
  }

  // latency: events appended one at a time while one worker runs
  const stop = await workers(1);
  const originalPush = receiver.received.push.bind(receiver.received);
  receiver.received.push = (...items) => {
    for (const item of items) arrivals.set(String(item.headers["service-event-id"]), Date.now());
    return originalPush(...items);
  };
  const latencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    const created = Date.now();
    const event = await db().$transaction((tx) =>
      appendEvent({
        db: tx,
        tenantId: tenant.id,
        type: "station.connected",
        resourceId: i,
        data: { i },
      }),
    );
    while (!arrivals.has(event.id)) await new Promise((r) => setTimeout(r, 2));
    latencies.push(arrivals.get(event.id)! - created);
    await new Promise((r) => setTimeout(r, 20));
  }
  await stop();
  const result = {
    benchmark: "webhooks",
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    throughput,
    event_to_first_attempt_ms: {
      samples: latencies.length,
      ...latency(latencies),
    },
  };
  writeResult("webhooks", result);
} finally {
  await receiver.close();
  await closeDb();
  await database.stop();
}
