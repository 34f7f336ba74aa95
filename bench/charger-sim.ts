/**
 * Simulated chargers for the OCPP benchmarks, in their own process so a gateway's figures are its
 * own. Reads one JSON job from argv, prints JSON lines on stdout. A job names its chargers as a
 * range, `<prefix><first>` to `<prefix><first + count - 1>`, so its size does not grow with them.
 *
 *   { kind: "connect", url, prefix, first, count, password, ratePerSecond, heartbeatMs }
 *     connects at `ratePerSecond` (each charger one socket), prints `{ ready, ... }`, then obeys
 *     stdin lines: `hold` starts heartbeats, each charger on its own clock spread over the
 *     interval, round trips timed; `stop` prints the result and closes every charger. Every call
 *     a charger receives (e.g. a Reset) is answered Accepted and recorded by name, so a benchmark
 *     can check which charger a command reached.
 *   { kind: "meter", url, prefix, first, count, password, seconds, readingEveryS? }
 *     (readingEveryS: the readings' timestamps step by that many seconds, so a step of 10 makes
 *     every message a `meter.sampled` event; by default they are the wall clock's)
 */
import readline from "node:readline";
import type { RPCClient } from "ocpp-rpc";
import { latency } from "./percentiles";
import {
  RETRY_UNTIL_CONNECTED,
  RETRY_WHEN_REFUSED_FOR_LOAD,
  simulatedCharger,
  sleep,
  withRetries,
} from "./sim-client";

type Chargers = { url: string; prefix: string; first: number; count: number; password: string };
export type ConnectJob = Chargers & { kind: "connect"; ratePerSecond: number; heartbeatMs: number };
type Job = ConnectJob | (Chargers & { kind: "meter"; seconds: number; readingEveryS?: number });

const job = JSON.parse(process.argv[2]!) as Job;
const names = Array.from({ length: job.count }, (_, i) => `${job.prefix}${job.first + i}`);
const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);

async function connectJob(spec: ConnectJob) {
  const clients: RPCClient[] = [];
  const failures: Record<string, number> = {};
  const received: [string, string][] = [];
  let dropped = 0;
  let retries = 0;
  let stopping = false;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < names.length; i++) {
    // Paced: charger i starts at i / rate, however long earlier handshakes take.
    const due = started + (i * 1000) / spec.ratePerSecond;
    if (due > performance.now()) await sleep(due - performance.now());
    const name = names[i]!;
    const c = simulatedCharger({
      url: spec.url,
      identity: name,
      password: spec.password,
      address: spec.first + i,
    });
    c.handle(({ method }) => {
      received.push([name, method ?? ""]);
      return Promise.resolve({ status: "Accepted" });
    });
    const attempt = withRetries(
      () => c.connect(),
      RETRY_WHEN_REFUSED_FOR_LOAD,
      () => retries++,
    ).then(
      () => {
        clients.push(c);
        c.once("close", () => void (stopping || dropped++));
      },
      (error: unknown) => {
        const { code, message } = error as { code?: number; message?: string };
        const reason = code ?? message ?? "unknown error";
        failures[String(reason)] = (failures[String(reason)] ?? 0) + 1;
      },
    );
    inFlight.add(attempt);
    void attempt.finally(() => inFlight.delete(attempt));
  }
  await Promise.all(inFlight);
  const failed = Object.values(failures).reduce((a, b) => a + b, 0);
  print({
    ready: true,
    connected: clients.length,
    failed,
    failures,
    retries,
    connect_seconds: Math.round((performance.now() - started) / 100) / 10,
  });

  const latencies: number[] = [];
  let heartbeatErrors = 0;
  let beating: Promise<unknown> = Promise.resolve();
  const commands = readline.createInterface({ input: process.stdin });
  for await (const line of commands) {
    if (line === "hold") {
      beating = Promise.all(
        clients.map(async (c) => {
          await sleep(Math.random() * spec.heartbeatMs);
          while (!stopping) {
            const t0 = performance.now();
            await c.call("Heartbeat", {}).then(
              () => latencies.push(Math.round((performance.now() - t0) * 10) / 10),
              () => heartbeatErrors++,
            );
            await sleep(spec.heartbeatMs);
          }
        }),
      );
    }
    if (line === "stop") break;
  }
  stopping = true;
  commands.close();
  // Heartbeats in flight finish (a sleeping loop ends at its next wake-up; not awaited).
  void beating;
  latencies.sort((a, b) => a - b);
  print({
    done: true,
    dropped,
    heartbeats: latencies.length,
    heartbeatErrors,
    latencies,
    received,
  });
  await Promise.all(clients.map((c) => c.close({ force: true })));
  process.exit(0);
}

if (job.kind === "connect") {
  await connectJob(job);
} else {
  const latencies: number[] = [];
  let errors = 0;
  // Connected and in a transaction before the clock starts: ten handshakes at a time, and again
  // after a refusal (the gateway takes a few checks at once per address and answers 429 past them).
  const ready: { c: RPCClient; transactionId: number }[] = [];
  for (let i = 0; i < names.length; i += 10)
    await Promise.all(
      names.slice(i, i + 10).map(async (name) => {
        const c = await withRetries(async () => {
          const attempt = simulatedCharger({
            url: job.url,
            identity: name,
            password: job.password,
          });
          await attempt.connect();
          return attempt;
        }, RETRY_UNTIL_CONNECTED);
        const start = (await c.call("StartTransaction", {
          connectorId: 1,
          idTag: "BENCH",
          meterStart: 0,
          timestamp: new Date().toISOString(),
        })) as { transactionId: number };
        ready.push({ c, transactionId: start.transactionId });
      }),
    );
  const deadline = Date.now() + job.seconds * 1000;
  await Promise.all(
    ready.map(async ({ c, transactionId }) => {
      const start = { transactionId };
      let wh = 0;
      let reading = Date.now();
      while (Date.now() < deadline) {
        wh += 10;
        reading = job.readingEveryS ? reading + job.readingEveryS * 1000 : Date.now();
        const t0 = performance.now();
        try {
          await c.call("MeterValues", {
            connectorId: 1,
            transactionId: start.transactionId,
            meterValue: [
              {
                timestamp: new Date(reading).toISOString(),
                sampledValue: [
                  { value: String(wh) },
                  { value: "7200", measurand: "Power.Active.Import", unit: "W" },
                ],
              },
            ],
          });
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
      await c.close({ force: true });
    }),
  );
  print({
    messages: latencies.length,
    errors,
    per_second: Math.round(latencies.length / job.seconds),
    ...latency(latencies),
  });
}
