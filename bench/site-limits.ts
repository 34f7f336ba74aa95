/**
 * Site power limits under churn (issue 28): 200 one-connector chargers at one location under one
 * limit, an `ocpp` process (ocpp/main.ts, the product's entry, with its job runner) dividing it,
 * sessions starting and stopping at 5 a second for 60 s (after a warm-up to half the chargers
 * charging). Figures: the time from a change (the StartTransaction or StopTransaction call) to the
 * last charger receiving its SetChargingProfile for it (p50/p99), the profiles sent per change,
 * and the gateway's and PostgreSQL's CPU per recomputation (process CPU time from /proc over the
 * measured phase, divided by the recomputations committed in it). Run: `npx tsx
 * bench/site-limits.ts` (BENCH_CHARGERS default 200, BENCH_RATE changes a second default 5,
 * BENCH_SECONDS default 60, BENCH_LIMIT_W default 5 kW per charger: 1 MW for 200). Writes
 * bench/results/site-limits.json.
 *
 * With the tolerance band (server/site-limits/README.md) a change moves only the few shares it
 * must, so the chargers a change affects are read from what they receive:
 * - a start: the new session's charger receiving its share (a limit of at least 80 % of the equal
 *   split; the others' decreases that make room for it are answered before it is sent, or it is
 *   sent first when there is slack, so it is the last charger of the change);
 * - a stop: each increase (a limit above the charger's previous one, to a session that was not
 *   just started) received after it and before the next stop, the last one timed.
 * At the end, after a quiet spell, every session's limit is compared with the equal split: how
 * many are outside the band (the fairness bound, which should be none).
 */
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import type { RPCClient } from "ocpp-rpc";
import { freePorts } from "../e2e/fixtures/product";
import { benchLocation, cheapPasswordHash, insertBenchStations } from "./bench-stations";
import { latency, machine, round2, scratchDatabase, writeResult } from "./harness";
import { cpuMsByProcess } from "./process-cpu";
import { simulatedCharger, sleep } from "./sim-client";

const CHARGERS = Number(process.env.BENCH_CHARGERS ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const LIMIT_W = Number(process.env.BENCH_LIMIT_W ?? CHARGERS * 5_000);
const MAX_W = 22_080;
/** The equal share of `n` sessions as sent: A per phase, tenths, rounded down (3 × 230 V). */
const shareOf = (n: number) => Math.floor((Math.min(MAX_W, LIMIT_W / Math.max(1, n)) * 10) / 690);
const PASSWORD = "bench-password-000001";

const database = await scratchDatabase("site-limits");
const { db, closeDb } = await import("../server/db");

function processName(pid: number, commandLine: string) {
  if (pid === process.pid) return "load_generator";
  if (/postgres/.test(commandLine)) return "postgres";
  if (/ocpp\/main\.ts/.test(commandLine)) return "gateway";
  return "other";
}

/** The `ocpp` process as `npm start` runs it; resolves once /health answers. */
async function startGateway() {
  const [port] = await freePorts(1);
  const child: ChildProcess = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "ocpp/main.ts"],
    {
      env: { ...process.env, OCPP_PORT: String(port), LOG_LEVEL: "warn", NODE_OPTIONS: "" },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const exited = new Promise((r) => child.on("exit", r));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`gateway exited (${child.exitCode})`);
    const up = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
    if (up?.ok) return { url: `ws://127.0.0.1:${port}/ocpp`, child, exited };
    if (i > 600) throw new Error("gateway did not come up");
    await sleep(100);
  }
}

type Charger = {
  i: number;
  client: RPCClient;
  transaction: number | null;
  /** when each SetChargingProfile arrived, and its limit (A per phase) */
  received: { at: number; limitA: number }[];
  /** when its current session started (the bench's clock) */
  startedAt: number;
};

const loadAtStart = os.loadavg();
const gateway = await startGateway();
const chargers: Charger[] = [];
try {
  const owner = await db().user.create({ data: { email: "bench@example.com" } });
  const team = await db().team.create({
    data: { name: "Bench", members: { create: { userId: owner.id, role: "owner" } } },
  });
  const tenant = await db().tenant.create({ data: { teamId: team.id, name: "Site limits" } });
  const location = await benchLocation(db(), tenant.id);
  const prefix = `SITE-${Date.now().toString(36)}-`;
  await insertBenchStations(db(), {
    tenants: [location],
    prefix,
    first: 0,
    count: CHARGERS,
    passwordHash: cheapPasswordHash(PASSWORD),
  });
  await db().sitePowerLimit.create({
    data: {
      locationId: location.locationId,
      tenantId: tenant.id,
      maxPowerW: LIMIT_W,
      minPowerW: 0,
      connectorMaxPowerW: MAX_W,
      phases: 3,
    },
  });

  // the chargers, 20 connecting at a time
  for (let first = 0; first < CHARGERS; first += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, CHARGERS - first) }, async (_, k) => {
        const i = first + k;
        const c: Charger = {
          i,
          client: simulatedCharger({
            url: gateway.url,
            identity: `${prefix}${i}`,
            password: PASSWORD,
          }),
          transaction: null,
          received: [],
          startedAt: 0,
        };
        c.client.handle("SetChargingProfile", ({ params }) => {
          const p = params as {
            csChargingProfiles: {
              chargingSchedule: { chargingSchedulePeriod: { limit: number }[] };
            };
          };
          const limitA = p.csChargingProfiles.chargingSchedule.chargingSchedulePeriod[0]!.limit;
          c.received.push({ at: performance.now(), limitA });
          return Promise.resolve({ status: "Accepted" });
        });
        await c.client.connect();
        await c.client.call("BootNotification", {
          chargePointVendor: "Bench",
          chargePointModel: "SiteLimit",
        });
        return c;
      }),
    );
    chargers.push(...batch);
  }

  const start = async (c: Charger) => {
    c.startedAt = performance.now();
    const answer = (await c.client.call("StartTransaction", {
      connectorId: 1,
      idTag: `BENCH-${c.i}`,
      meterStart: 0,
      timestamp: new Date().toISOString(),
    })) as { transactionId: number };
    c.transaction = answer.transactionId;
  };
  const stop = async (c: Charger) => {
    const transactionId = c.transaction!;
    c.transaction = null;
    await c.client.call("StopTransaction", {
      transactionId,
      meterStop: 1000,
      timestamp: new Date().toISOString(),
      reason: "Local",
    });
  };
  const quiet = async (ms: number) => {
    for (;;) {
      const last = Math.max(0, ...chargers.map((c) => c.received.at(-1)?.at ?? 0));
      if (performance.now() - last > ms) return;
      await sleep(200);
    }
  };

  // warm-up: half the chargers charging
  for (let i = 0; i < CHARGERS; i += 2) {
    await start(chargers[i]!);
    await sleep(50);
  }
  await quiet(3_000);

  const recomputations = async () =>
    (
      await db().sitePowerLimit.findUniqueOrThrow({
        where: { locationId: location.locationId },
        select: { computedCount: true },
      })
    ).computedCount;
  const countBefore = await recomputations();
  const cpuBefore = cpuMsByProcess(processName);
  const loadAtMeasure = os.loadavg();
  const changes: { at: number; c: Charger; starting: boolean; sessions: number }[] = [];
  const began = performance.now();
  for (let n = 0; performance.now() - began < SECONDS * 1000; n++) {
    const due = began + (n * 1000) / RATE;
    if (due > performance.now()) await sleep(due - performance.now());
    const c = chargers[Math.floor(Math.random() * CHARGERS)]!;
    const at = performance.now();
    const starting = c.transaction === null;
    const sessions = chargers.filter((o) => o.transaction !== null).length;
    changes.push({ at, c, starting, sessions: sessions + (starting ? 1 : -1) });
    // not awaited in turn: the next change comes on time whatever this one's answer takes
    void (starting ? start(c) : stop(c)).catch((e: unknown) => console.error(e));
  }
  const measuredSeconds = (performance.now() - began) / 1000;
  await quiet(5_000);
  const cpuAfter = cpuMsByProcess(processName);
  const countAfter = await recomputations();

  // a start: to its charger receiving its share
  const startDelays: number[] = [];
  let startsNeverShared = 0;
  for (const ch of changes.filter((x) => x.starting)) {
    const share = ch.c.received.find(
      (r) => r.at > ch.at && r.limitA * 10 >= 0.8 * shareOf(ch.sessions),
    );
    const stoppedAt = changes.find((x) => x.c === ch.c && !x.starting && x.at > ch.at)?.at;
    if (share && (stoppedAt === undefined || share.at < stoppedAt))
      startDelays.push(share.at - ch.at);
    else if (stoppedAt === undefined) startsNeverShared++;
  }
  // a stop: to the last increase received before the next stop (to a session not just started)
  const stops = changes.filter((x) => !x.starting);
  const stopDelays = stops.map((ch, k) => {
    const until = stops[k + 1]?.at ?? Infinity;
    let worst = 0;
    for (const c of chargers) {
      let previous: number | null = null;
      for (const r of c.received) {
        if (r.at > ch.at && r.at < until && previous !== null && r.limitA > previous)
          if (c.startedAt < ch.at || r.at - c.startedAt > 5_000)
            worst = Math.max(worst, r.at - ch.at);
        previous = r.limitA;
      }
    }
    return worst;
  });
  // the fairness bound at rest: every session within the band of the equal split
  const running = chargers.filter((c) => c.transaction !== null);
  const equalDeciA = shareOf(running.length);
  const bandDeciA = Math.max(10, Math.round(equalDeciA * 0.1));
  const outsideBand = running.filter((c) => {
    const limit = c.received.at(-1)?.limitA;
    return limit === undefined || Math.abs(limit * 10 - equalDeciA) > bandDeciA + 1;
  }).length;
  if (process.env.BENCH_DEBUG)
    for (const c of running.filter((x) => {
      const limit = x.received.at(-1)?.limitA;
      return limit === undefined || Math.abs(limit * 10 - equalDeciA) > bandDeciA + 1;
    }))
      console.error(
        "outside the band",
        c.i,
        c.received.slice(-4),
        await db().$queryRaw`
          SELECT a.allocated_w, a.sent_deci_a, a.believed_w, a.confirmed, cp.state, cp.charger_status,
                 o.status, o.result
            FROM site_power_allocations a
            JOIN stations s ON s.id = a.station_id
            LEFT JOIN charging_profiles cp ON cp.station_id = a.station_id
                  AND cp.charging_profile_id = a.charging_profile_id
            LEFT JOIN operations o ON o.id = cp.operation_id
           WHERE s.name = ${`${prefix}${c.i}`}`,
      );
  const sentInMeasure = chargers.reduce(
    (sum, c) => sum + c.received.filter((r) => r.at >= began).length,
    0,
  );
  const recomputed = countAfter - countBefore;
  const cpu = (name: string) => (cpuAfter?.[name] ?? 0) - (cpuBefore?.[name] ?? 0);
  const profiles = chargers.reduce((sum, c) => sum + c.received.length, 0);
  writeResult("site-limits", {
    chargers: CHARGERS,
    limit_w: LIMIT_W,
    changes_per_second: RATE,
    seconds: round2(measuredSeconds),
    changes: changes.length,
    sessions_at_end: chargers.filter((c) => c.transaction !== null).length,
    start_to_its_share_ms: latency(startDelays),
    starts_never_given_their_share: startsNeverShared,
    stop_to_last_increase_ms: latency(stopDelays),
    change_to_last_charger_ms: latency([...startDelays, ...stopDelays]),
    recomputations: recomputed,
    set_charging_profiles_received_total: profiles,
    set_charging_profiles_per_change: round2(sentInMeasure / Math.max(1, changes.length)),
    sessions_outside_band_at_end: outsideBand,
    cpu_ms_per_recomputation: {
      gateway: round2(cpu("gateway") / Math.max(1, recomputed)),
      postgres: round2(cpu("postgres") / Math.max(1, recomputed)),
    },
    cpu_ms_total: {
      gateway: round2(cpu("gateway")),
      postgres: round2(cpu("postgres")),
      load_generator: round2(cpu("load_generator")),
    },
    load_average_at_measure: loadAtMeasure.map(round2),
    machine: machine(loadAtStart),
  });
} finally {
  await Promise.all(chargers.map((c) => c.client.close({ force: true }).catch(() => undefined)));
  gateway.child.kill("SIGTERM");
  await gateway.exited;
  await closeDb();
  await database.stop();
}
