/**
 * Simulated chargers for bench/ocpp.ts, in their own process so the gateway's figures are its own.
 * Reads one JSON job from argv, prints one JSON result on stdout. A job names its chargers as a
 * range, `<prefix><first>` to `<prefix><first + count - 1>`, so its size does not grow with them.
 *   { kind: "connect", url, prefix, first, count, password, heartbeatMs, holdMs }
 *   { kind: "meter", url, prefix, first, count, password, seconds, readingEveryS? }
 *   (readingEveryS: the readings' timestamps step by that many seconds, so a step of 10 makes
 *   every message a `meter.sampled` event; by default they are the wall clock's)
 */
import { RPCClient } from "ocpp-rpc";

type Chargers = { url: string; prefix: string; first: number; count: number; password: string };
type Job =
  | (Chargers & { kind: "connect"; heartbeatMs: number; holdMs: number })
  | (Chargers & { kind: "meter"; seconds: number; readingEveryS?: number });

const job = JSON.parse(process.argv[2]!) as Job;
const names = Array.from({ length: job.count }, (_, i) => `${job.prefix}${job.first + i}`);

function client(url: string, identity: string, password: string) {
  return new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
    endpoint: url,
    identity,
    password,
    protocols: ["ocpp1.6"],
    reconnect: false,
    callTimeoutMs: 30_000,
  });
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

if (job.kind === "connect") {
  const clients: RPCClient[] = [];
  let failed = 0;
  for (let i = 0; i < names.length; i += 50) {
    const batch = names.slice(i, i + 50).map(async (name) => {
      const c = client(job.url, name, job.password);
      try {
        await c.connect();
        clients.push(c);
      } catch {
        failed++;
      }
    });
    await Promise.all(batch);
  }
  process.stdout.write(`${JSON.stringify({ ready: true, connected: clients.length, failed })}\n`);
  // Each charger heartbeats on its own clock, spread over the interval, as real ones do.
  const started = Date.now();
  let heartbeats = 0;
  let heartbeatErrors = 0;
  await Promise.all(
    clients.map(async (c) => {
      await new Promise((r) => setTimeout(r, Math.random() * job.heartbeatMs));
      while (Date.now() - started < job.holdMs) {
        await c.call("Heartbeat", {}).then(
          () => heartbeats++,
          () => heartbeatErrors++,
        );
        await new Promise((r) => setTimeout(r, job.heartbeatMs));
      }
    }),
  );
  await Promise.all(clients.map((c) => c.close({ force: true })));
  process.stdout.write(`${JSON.stringify({ done: true, heartbeats, heartbeatErrors })}\n`);
} else {
  const latencies: number[] = [];
  let errors = 0;
  // Connected and in a transaction before the clock starts: ten handshakes at a time, and again
  // after a refusal (the gateway takes a few checks at once per address and answers 429 past them).
  const ready: { c: RPCClient; transactionId: number }[] = [];
  for (let i = 0; i < names.length; i += 10)
    await Promise.all(
      names.slice(i, i + 10).map(async (name) => {
        for (;;) {
          const c = client(job.url, name, job.password);
          try {
            await c.connect();
          } catch {
            await new Promise((r) => setTimeout(r, 200));
            continue;
          }
          const start = (await c.call("StartTransaction", {
            connectorId: 1,
            idTag: "BENCH",
            meterStart: 0,
            timestamp: new Date().toISOString(),
          })) as { transactionId: number };
          ready.push({ c, transactionId: start.transactionId });
          return;
        }
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
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({ messages: latencies.length, errors, per_second: Math.round(latencies.length / job.seconds), p50_ms: +pct(latencies, 50).toFixed(2), p99_ms: +pct(latencies, 99).toFixed(2) })}\n`,
  );
}
