/**
 * Chargers for bench/national.ts, in their own process (one process holds at most `ulimit -n`
 * sockets), its sockets from loopback source addresses `<sourceNet>.<a>.<b>`, at most
 * `PER_SOURCE_ADDRESS` on each: one source address has only the ephemeral port range's ports
 * (about 28,000) towards the one gateway port, and a socket bound to an address before it
 * connects takes its port by the kernel's scan of that address's ports in use, whose cost grows
 * with how many there are (at ~10,000 an address it was an eighth of the machine's CPU, in
 * inet_csk_get_port, in the load generator and not the product). Reads one JSON job from argv
 * and prints JSON lines on stdout.
 *   { url, prefix, first, count, password, rate, sourceNet, heartbeatMs, samplesFile }
 * Chargers `<prefix><first>`… connect at `rate` a second, send BootNotification and
 * StatusNotification, print `{ up, connect, boot_status, retries, retries_by_reason, at }` once
 * all are up, and then keep up: heartbeats every `heartbeatMs` (each on its own clock), and
 * whenever a socket closes, a reconnect (and boot) after a short random wait, retried with a
 * growing random pause.
 * stdin lines:
 *   `mark`: heartbeat samples and the set of dropped chargers start afresh;
 *   `report`: prints `{ report, kept, kept_at, dropped_chargers, errors }`: the heartbeat round
 *     trips since the mark of chargers whose socket did not close since it (`kept`, ms; `kept_at`,
 *     when each was answered, epoch ms), and how many closed;
 *   `status`: prints `{ status, down, dropped, back_at }`;
 *   `meter <everyS> <seconds> [startS] [count]`: every charger (or the first `count`) starts a
 *     transaction (each at a moment
 *     within the first `startS` s, default `everyS`; 0: all at the same instant) and prints
 *     `{ started, starts }` when all are answered, then sends MeterValues every `everyS` s (its
 *     readings' timestamps exactly `everyS` s apart) for `seconds`; prints `{ meter, messages,
 *     errors, latencies, starts }` (errors by call and reason)
 *     and appends `name,readingMs,sentMs` per answered message to `samplesFile`;
 *   `stop` (or stdin closing): exits.
 */
import fs from "node:fs";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import readline from "node:readline";
import type { RPCClient } from "ocpp-rpc";
import { latency } from "./percentiles";
import {
  backoff,
  bootCharger,
  failureReason,
  simulatedCharger,
  sleep,
  withRetries,
} from "./sim-client";

type Job = {
  url: string;
  prefix: string;
  first: number;
  count: number;
  password: string;
  rate: number;
  /** the first two octets of the job's source addresses, e.g. `127.2` */
  sourceNet: string;
  heartbeatMs: number;
  samplesFile: string;
  /** this process's scheduling priority (BENCH_SIMULATOR_NICE), when not the default 0 */
  nice?: number;
};
const job = JSON.parse(process.argv[2]!) as Job;
if (job.nice) os.setPriority(job.nice);
const names = Array.from({ length: job.count }, (_, i) => `${job.prefix}${job.first + i}`);
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
/** how late this process's event loop runs (the load generator's own lag, in every round trip) */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

/** sockets on one loopback source address, so the kernel's port choice for each stays cheap */
const PER_SOURCE_ADDRESS = 1_000;
/** charger i's source address: `<sourceNet>.<c>.<d>`, PER_SOURCE_ADDRESS chargers each */
const sourceAddress = (i: number) => {
  const n = Math.floor(i / PER_SOURCE_ADDRESS);
  return `${job.sourceNet}.${Math.floor(n / 254)}.${(n % 254) + 1}`;
};

/** Charger `i` of the job, from an address of its own (as if behind a proxy) and a source address. */
const client = (i: number) =>
  simulatedCharger({
    url: job.url,
    identity: names[i]!,
    password: job.password,
    address: job.first + i,
    localAddress: sourceAddress(i),
  });

const boot = (c: RPCClient) => bootCharger(c, "National");

const current: (RPCClient | undefined)[] = new Array(job.count);
const down = new Set<number>(names.keys());
let dropped = new Set<number>();
let backAt: number | null = null;
let kept: number[] = [];
let beatsOf: { i: number; ms: number; at: number }[] = [];
let heartbeatErrors = 0;
let stopping = false;
const connectMs: number[] = [];
const bootStatusMs: number[] = [];
let retries = 0;
/** failed attempts by the HTTP status of a refused handshake or the error's code */
const retriesByReason: Record<string, number> = {};
const policy = backoff(1_000, 15_000);

/** Connects (retrying) and boots charger i; again whenever its socket closes. */
async function keepUp(i: number, firstAt: number) {
  await sleep(firstAt - performance.now());
  let first = true;
  while (!stopping) {
    const c = await withRetries(
      async () => {
        const attempt = client(i);
        try {
          const t0 = performance.now();
          await attempt.connect();
          const t1 = performance.now();
          await boot(attempt);
          if (first) {
            connectMs.push(t1 - t0);
            bootStatusMs.push(performance.now() - t1);
          }
          return attempt;
        } catch (error) {
          void attempt.close({ force: true }).catch(() => undefined);
          throw error;
        }
      },
      policy,
      (error) => {
        retries++;
        retriesByReason[failureReason(error)] = (retriesByReason[failureReason(error)] ?? 0) + 1;
      },
    );
    current[i] = c;
    down.delete(i);
    if (first) {
      first = false;
      if (down.size === 0)
        print({
          up: names.length,
          connect: latency(connectMs),
          boot_status: latency(bootStatusMs),
          retries,
          retries_by_reason: retriesByReason,
          at: Date.now(),
        });
      void heartbeats(i);
    } else if (down.size === 0) {
      backAt = Date.now();
      print({ back: names.length, at: backAt });
    }
    await new Promise((resolve) => c.once("close", resolve));
    if (stopping) return;
    current[i] = undefined;
    down.add(i);
    dropped.add(i);
    await sleep(Math.random() * 1_000);
  }
}

async function heartbeats(i: number) {
  await sleep(Math.random() * job.heartbeatMs);
  while (!stopping) {
    const c = current[i];
    if (c) {
      const t0 = performance.now();
      try {
        await c.call("Heartbeat", {});
        beatsOf.push({ i, ms: performance.now() - t0, at: Date.now() });
      } catch {
        if (current[i] === c) heartbeatErrors++;
      }
    }
    await sleep(job.heartbeatMs);
  }
}

async function meter(everyS: number, seconds: number, startS: number, count: number) {
  const taking = names.slice(0, count);
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const failed = (what: string, error: unknown) => {
    const key = `${what}: ${failureReason(error)}`;
    errors[key] = (errors[key] ?? 0) + 1;
  };
  const out = fs.createWriteStream(job.samplesFile, { flags: "a" });
  const periodMs = everyS * 1000;
  // 1. Every charger starts its transaction: at the same instant with startS 0 (the burst case: a
  // national network's chargers after a blackout), else each at a moment within the first startS
  // seconds; the starts are timed first sent → last answered.
  const starts = { first_sent: Date.now(), last_answered: 0, answered: 0 };
  const transactions = await Promise.all(
    taking.map(async (_, i) => {
      if (startS > 0) await sleep(Math.random() * startS * 1000);
      const c = current[i];
      if (!c) return void failed("StartTransaction", new Error("not connected"));
      try {
        // a charger sends a refused transaction message again (OCPP 1.6, 4.10), here up to ten
        // times 1 to 3 s apart
        const transactionId = await withRetries(
          async () =>
            (
              (await c.call("StartTransaction", {
                connectorId: 1,
                idTag: "BENCH",
                meterStart: 0,
                timestamp: new Date().toISOString(),
              })) as { transactionId: number }
            ).transactionId,
          { attempts: 10, retryable: () => true, pauseMs: () => 1000 + Math.random() * 2000 },
          (error) => failed("StartTransaction (sent again)", error),
        );
        starts.last_answered = Math.max(starts.last_answered, Date.now());
        starts.answered++;
        return { c, transactionId };
      } catch (error) {
        return void failed("StartTransaction", error);
      }
    }),
  );
  print({ started: true, starts });
  // 2. Then readings, for `seconds`, each charger on its own clock: every everyS seconds from a
  // moment within the first period, each stamped with its due time (consecutive ones exactly
  // everyS apart, as the sampling rule sees them).
  const started = Date.now();
  const until = started + seconds * 1000;
  await Promise.all(
    taking.map(async (name, i) => {
      const t = transactions[i];
      if (!t) return;
      const { c, transactionId } = t;
      let due = started + Math.random() * periodMs;
      let wh = 0;
      while (due < until && !stopping) {
        await sleep(due - Date.now());
        wh += 10;
        const sent = Date.now();
        const t0 = performance.now();
        try {
          await c.call("MeterValues", {
            connectorId: 1,
            transactionId,
            meterValue: [
              {
                timestamp: new Date(Math.round(due)).toISOString(),
                sampledValue: [
                  { value: String(wh) },
                  { value: "7200", measurand: "Power.Active.Import", unit: "W" },
                ],
              },
            ],
          });
          latencies.push(performance.now() - t0);
          out.write(`${name},${Math.round(due)},${sent}\n`);
        } catch (error) {
          failed("MeterValues", error);
        }
        due += periodMs;
      }
    }),
  );
  await new Promise((resolve) => out.end(resolve));
  print({ meter: true, messages: latencies.length, errors, latencies, starts });
}

readline
  .createInterface({ input: process.stdin })
  .on("line", (line) => {
    const [word, ...args] = line.trim().split(" ");
    if (word === "mark") {
      loopDelay.reset();
      beatsOf = [];
      dropped = new Set();
      heartbeatErrors = 0;
    } else if (word === "report") {
      const keptBeats = beatsOf.filter((b) => !dropped.has(b.i));
      kept = keptBeats.map((b) => b.ms);
      print({
        report: true,
        kept,
        kept_at: keptBeats.map((b) => b.at),
        dropped_chargers: dropped.size,
        errors: heartbeatErrors,
        // this process's own event-loop delay since the mark: a round trip includes it
        loop_delay_ms: {
          p99: loopDelay.percentile(99) / 1e6,
          max: loopDelay.max / 1e6,
        },
      });
    } else if (word === "status") {
      print({ status: true, down: down.size, dropped: dropped.size, back_at: backAt });
    } else if (word === "meter") {
      void meter(
        Number(args[0]),
        Number(args[1]),
        Number(args[2] ?? args[0]),
        Number(args[3] ?? names.length),
      );
    } else if (word === "stop") {
      stopping = true;
      process.exit(0);
    }
  })
  .on("close", () => process.exit(0));

const started = performance.now();
names.forEach((_, i) => void keepUp(i, started + (i * 1000) / job.rate));
