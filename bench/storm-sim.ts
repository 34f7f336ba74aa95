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
import { RPCClient } from "ocpp-rpc";

type Chargers = { url: string; prefix: string; first: number; count: number; password: string };
/** a failed handshake is retried after min(maxMs, firstMs * 2^failures) * a random 0.5 to 1.5 */
type Retry = { firstMs: number; maxMs: number };
type Job =
  | (Chargers & { kind: "arrivals"; rate: number; timeoutMs: number })
  | (Chargers & { kind: "storm"; retry: Retry });

const job = JSON.parse(process.argv[2]!) as Job;
const names = Array.from({ length: job.count }, (_, i) => `${job.prefix}${job.first + i}`);
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Each charger comes from an address of its own, as real ones do (through loopback the gateway
 * takes it from X-Forwarded-For, as behind its proxy), so the per-address limits and lines see
 * one charger each rather than a whole fleet behind one address.
 */
function client(index: number) {
  const n = job.first + index;
  return new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
    endpoint: job.url,
    identity: names[index]!,
    headers: { "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` },
    password: job.password,
    protocols: ["ocpp1.6"],
    reconnect: false,
    callTimeoutMs: 30_000,
  });
}

/** What a charger sends once its socket is open. */
async function boot(c: RPCClient) {
  await c.call("BootNotification", { chargePointVendor: "Bench", chargePointModel: "Storm" });
  await c.call("StatusNotification", {
    connectorId: 1,
    errorCode: "NoError",
    status: "Available",
    timestamp: new Date().toISOString(),
  });
}

/** The HTTP status of a refused handshake, or the error's code (ECONNREFUSED, timeout). */
const reason = (error: unknown) => {
  const e = error as { code?: string | number; message?: string };
  return String(e.code ?? e.message ?? "error");
};

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
        dropped[reason(error)] = (dropped[reason(error)] ?? 0) + 1;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  print({ connectMs, bootStatusMs, dropped, seconds: (performance.now() - started) / 1000 });
  await Promise.all(clients.map((c) => c.close({ force: true }).catch(() => undefined)));
  process.exit(0);
} else {
  const { retry } = job;
  let stopping = false;
  /** chargers not connected and booted since their last drop */
  const down = new Set<number>(names.keys());
  const refusals: Record<string, number> = {};
  let announced = false;

  /** Connects (retrying) and boots one charger; reconnects whenever its socket closes. */
  async function keepUp(index: number) {
    let failures = 0;
    while (!stopping) {
      const c = client(index);
      try {
        await c.connect();
        await boot(c);
      } catch (error) {
        refusals[reason(error)] = (refusals[reason(error)] ?? 0) + 1;
        void c.close({ force: true }).catch(() => undefined);
        const wait = Math.min(retry.maxMs, retry.firstMs * 2 ** failures);
        failures += 1;
        await sleep(wait * (0.5 + Math.random()));
        continue;
      }
      failures = 0;
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
  readline.createInterface({ input: process.stdin }).on("line", (line) => {
    if (line.trim() !== "stop") return;
    stopping = true;
    clearInterval(progress);
    process.exit(0);
  });
  await Promise.all(all);
}
