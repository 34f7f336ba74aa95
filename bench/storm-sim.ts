/**
 * Chargers for bench/storm.ts, in their own process (several of them for a large storm: one
 * process holds at most `ulimit -n` sockets). Reads one JSON job from argv and prints JSON lines
 * on stdout. Chargers are named `<prefix><first>` to `<prefix><first + count - 1>`.
 *   { kind: "arrivals", url, prefix, first, count, password, rate, timeoutMs }
 *     New chargers at a fixed rate: each connects, sends BootNotification and StatusNotification
 *     once, with no retry (a handshake or call that fails or outlasts `timeoutMs` is dropped).
 *   { kind: "storm", url, prefix, first, count, password, retry }
 *     Chargers that connect and boot, print `{ ready }`, then, whenever their socket closes,
 *     reconnect and boot again, retrying a refused or failed handshake after a growing random
 *     wait (`retry`), as real chargers do. They print `{ back, at }` whenever every charger is
 *     connected and booted again after a drop, and stop on "stop" on stdin.
 */
import readline from "node:readline";
import type { RPCClient } from "ocpp-rpc";
import {
  backoff,
  bootCharger,
  failureReason,
  simulatedCharger,
  sleep,
  withRetries,
} from "./sim-client";

type Chargers = { url: string; prefix: string; first: number; count: number; password: string };
/** a failed handshake is retried after a growing random pause (`backoff`, bench/sim-client.ts) */
type Retry = { firstMs: number; maxMs: number };
type Job =
  | (Chargers & { kind: "arrivals"; rate: number; timeoutMs: number })
  | (Chargers & { kind: "storm"; retry: Retry });

const job = JSON.parse(process.argv[2]!) as Job;
const names = Array.from({ length: job.count }, (_, i) => `${job.prefix}${job.first + i}`);
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** Charger `index` of the job, from an address of its own. */
const client = (index: number) =>
  simulatedCharger({
    url: job.url,
    identity: names[index]!,
    password: job.password,
    address: job.first + index,
  });

const boot = (c: RPCClient) => bootCharger(c, "Storm");

if (job.kind === "arrivals") {
  const clients: RPCClient[] = [];
  const connectMs: number[] = [];
  const bootStatusMs: number[] = [];
  const dropped: Record<string, number> = {};
  const started = performance.now();
  await Promise.all(
    names.map(async (_, i) => {
      await sleep(started + (i * 1000) / job.rate - performance.now());
      const c = client(i);
      clients.push(c);
      const t0 = performance.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          (async () => {
            await c.connect();
            const t1 = performance.now();
            connectMs.push(t1 - t0);
            await boot(c);
            bootStatusMs.push(performance.now() - t1);
          })(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error("timeout")), job.timeoutMs);
          }),
        ]);
      } catch (error) {
        dropped[failureReason(error)] = (dropped[failureReason(error)] ?? 0) + 1;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const cpu = process.cpuUsage();
  print({
    connectMs,
    bootStatusMs,
    dropped,
    seconds: (performance.now() - started) / 1000,
    cpuMs: (cpu.user + cpu.system) / 1000,
  });
  await Promise.all(clients.map((c) => c.close({ force: true }).catch(() => undefined)));
  process.exit(0);
} else {
  const { retry } = job;
  let stopping = false;
  /** chargers not connected and booted since their last drop */
  const down = new Set<number>(names.keys());
  const refusals: Record<string, number> = {};
  let announced = false;

  const policy = backoff(retry.firstMs, retry.maxMs);

  /** Connects (retrying) and boots one charger; reconnects whenever its socket closes. */
  async function keepUp(index: number) {
    while (!stopping) {
      const c = await withRetries(
        async () => {
          const attempt = client(index);
          try {
            await attempt.connect();
            await boot(attempt);
            return attempt;
          } catch (error) {
            void attempt.close({ force: true }).catch(() => undefined);
            throw error;
          }
        },
        policy,
        (error) => (refusals[failureReason(error)] = (refusals[failureReason(error)] ?? 0) + 1),
      );
      down.delete(index);
      if (down.size === 0 && !announced) {
        announced = true;
        print({ back: names.length, at: Date.now(), refusals });
      }
      await new Promise((resolve) => c.once("close", resolve));
      if (stopping) return;
      down.add(index);
      announced = false;
      // A charger notices the drop and reconnects after a short random wait of its own.
      await sleep(Math.random() * retry.firstMs);
    }
  }

  const progress = setInterval(() => print({ down: down.size, at: Date.now() }), 5_000);
  const all = names.map((_, i) => keepUp(i));
  print({ started: names.length });
  // "stop", or stdin closing: the benchmark that started this process has gone.
  const stop = () => {
    stopping = true;
    clearInterval(progress);
    process.exit(0);
  };
  readline
    .createInterface({ input: process.stdin })
    .on("line", (line) => line.trim() === "stop" && stop())
    .on("close", stop);
  await Promise.all(all);
}
