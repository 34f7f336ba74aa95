/**
 * Sandbox charging under load, against the product started as `npm start` does (web process,
 * `ocpp` process with its virtual-charger host, embedded PostgreSQL): `BENCH_SESSIONS` sandbox
 * sessions (default 100) over workspaces of `BENCH_PER_WORKSPACE` sessions each (default 10; a
 * workspace has 12 sandbox connectors on 3 virtual chargers), each advanced `BENCH_RATE` times a
 * second (default 10) for `BENCH_SECONDS` (default 60) through
 * `POST /v1/sandbox/sessions/{id}/advance`, at most one advance in flight per session (a session
 * whose answer is late sends its next one when it comes: the rate achieved is reported beside the
 * rate asked). Meanwhile one reader per workspace pages `GET /v1/events` by cursor.
 *
 * Figures: advance answer p50/p99 (HTTP, as the load generator saw it), advances per second,
 * answers that came back still pending (the 3 s wait ran out), the advance's trip through the
 * virtual charger (its row's `created_at` to `applied_at`), events per second written to and read
 * from the workspace logs (and the readers' lag), CPU per advance and per virtual charger of the
 * gateway (the `ocpp` process: the gateway and its virtual chargers, one process), the web
 * process, PostgreSQL and this load generator, and PostgreSQL commits per advance.
 *
 * Run: `npx tsx bench/sandbox.ts` (builds the console on first use). Writes
 * bench/results/sandbox.json.
 */
import os from "node:os";
import { loopback, startProduct } from "../e2e/fixtures/product";
import { closeDb, db } from "../server/db";
import { createApiKey } from "../server/keys/create-api-key";
import { RATE_LIMIT_MAX } from "../server/keys/set-rate-limit";
import { latency, machine, round2, writeResult } from "./harness";
import { cpuMsByProcess, processCpuMs } from "./process-cpu";
import { bootstrapProject } from "./product-project";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100);
const PER_WORKSPACE = Number(process.env.BENCH_PER_WORKSPACE ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
/** each advance: 25 Wh over 10 virtual seconds (9 kW, within every sandbox connector's power) */
const ADVANCE = { energy_wh: 25, elapsed_seconds: 10 };
/** seconds at rest before the load (the baseline), and advances sent one at a time */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const SERIAL = Number(process.env.BENCH_SERIAL ?? 50);

/** Which of the product's processes (or this one, the load generator) a process is. */
function processName(pid: number, commandLine: string) {
  if (pid === process.pid) return "load_generator";
  if (/postgres/.test(commandLine)) return "postgres";
  if (/web-server/.test(commandLine)) return "web";
  if (/ocpp\/main/.test(commandLine)) return "gateway";
  return "other";
}

const product = await startProduct();
const base = loopback(product.baseUrl);

type Answer = { status: number; body: any; ms: number };
async function call(
  key: string,
  method: string,
  path: string,
  body?: unknown,
  idempotencyKey?: string,
): Promise<Answer> {
  const t0 = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  return { status: res.status, body: json, ms: performance.now() - t0 };
}
/** 5xx answers outside the measured window, retried (a POST under the same Idempotency-Key). */
const outsideWindow5xx: Record<string, number> = {};
let keys = 0;
/** Outside the measured window: a call that must succeed, retried (same key) on a 5xx. */
async function must(key: string, method: string, path: string, body?: unknown) {
  const idempotencyKey = method === "POST" ? `bench-${Date.now()}-${++keys}` : undefined;
  for (let attempt = 1; ; attempt++) {
    const a = await call(key, method, path, body, idempotencyKey);
    if (a.status < 300) return a.body;
    if (a.status >= 500 && attempt < 5) {
      const what = `${method} ${path.replace(/sbs_\w+/, "{id}")}: ${a.status} ${a.body?.error?.code}`;
      outsideWindow5xx[what] = (outsideWindow5xx[what] ?? 0) + 1;
      await sleep(500 * attempt);
      continue;
    }
    throw new Error(`${method} ${path}: ${a.status} ${JSON.stringify(a.body)}`);
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

try {
  // Workspaces (a team and its owner) and workspace keys straight in the product's database, one
  // key per session and one per reader, each at the highest per-key limit (1,200 a minute: a
  // session asks 600), so the limiter is paid for but never refuses.
  const boot = await bootstrapProject(product, "Sandbox bench");
  const workspaces: { teamId: number; readerKey: string; sessionKeys: string[] }[] = [];
  const keyOf = async (teamId: number) => {
    const key = await createApiKey({
      tenantId: null,
      teamId,
      ownerUserId: boot.user_id,
      scopes: ["sandbox:read", "sandbox:write"],
    });
    await db().apiKey.update({
      where: { id: key.id },
      data: { rateLimitPerMinute: RATE_LIMIT_MAX },
    });
    return key.secret;
  };
  for (let w = 0; w * PER_WORKSPACE < SESSIONS; w++) {
    const count = Math.min(PER_WORKSPACE, SESSIONS - w * PER_WORKSPACE);
    const team = await db().team.create({
      data: {
        name: `Sandbox bench ${w}`,
        members: { create: { userId: boot.user_id, role: "owner" } },
      },
    });
    const sessionKeys = [];
    for (let s = 0; s < count; s++) sessionKeys.push(await keyOf(team.id));
    workspaces.push({ teamId: team.id, readerKey: await keyOf(team.id), sessionKeys });
  }

  // Sessions: one workspace's after another's (its first call provisions its sandbox), each
  // waited for until `charging`.
  const startedAt = performance.now();
  const sessions: { id: string; key: string; workspace: number }[] = [];
  await Promise.all(
    workspaces.map(async (w, i) => {
      for (const key of w.sessionKeys) {
        const made = await must(key, "POST", "/v1/sessions", { hold_minor: 10_000 });
        sessions.push({ id: made.id as string, key, workspace: i });
      }
    }),
  );
  for (const s of sessions)
    for (;;) {
      const now = await must(s.key, "GET", `/v1/sessions/${s.id}`);
      if (now.status === "charging") break;
      if (now.status === "failed") throw new Error(`session ${s.id} failed: ${now.last_error}`);
      await sleep(200);
    }
  const startSeconds = (performance.now() - startedAt) / 1000;
  const virtualChargers = Number(
    (
      await db().$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM sandbox_chargers c
         WHERE EXISTS (SELECT 1 FROM connectors k JOIN sandbox_sessions s
                         ON s.open_connector_id = k.id WHERE k.station_id = c.station_id)`
    )[0]!.n,
  );
  console.log(
    `${sessions.length} sessions charging in ${round2(startSeconds)} s on ${virtualChargers} virtual chargers`,
  );

  // Readers: each workspace's log, paged by cursor from its end now.
  const cursors = await Promise.all(
    workspaces.map(async (w) => {
      let after = 0;
      for (;;) {
        const page = await must(w.readerKey, "GET", `/v1/events?after=${after}&limit=100`);
        after = page.next_cursor ?? after;
        if (!page.has_more) return after;
      }
    }),
  );
  let measuring = true;
  const read = {
    events: 0,
    lagMs: [] as number[],
    byType: {} as Record<string, number>,
    refused: {} as Record<number, number>,
  };
  const readers = workspaces.map(async (w, i) => {
    let after = cursors[i]!;
    while (measuring) {
      const answer = await call(w.readerKey, "GET", `/v1/events?after=${after}&limit=100`);
      if (answer.status !== 200) {
        read.refused[answer.status] = (read.refused[answer.status] ?? 0) + 1;
        await sleep(250);
        continue;
      }
      const page = answer.body;
      const at = Date.now();
      for (const e of page.data as { type: string; created_at: string }[]) {
        read.events += 1;
        read.lagMs.push(at - Date.parse(e.created_at));
        read.byType[e.type] = (read.byType[e.type] ?? 0) + 1;
      }
      after = page.next_cursor ?? after;
      if (!page.has_more) await sleep(250);
    }
  });

  const pgCommits = async () =>
    Number(
      (
        await db().$queryRaw<{ commits: bigint }[]>`
          SELECT xact_commit AS commits FROM pg_stat_database
           WHERE datname = current_database()`
      )[0]!.commits,
    );

  // At rest: every session charging, the readers polling, nothing advanced. What the product
  // spends then (heartbeats, the host's ticks, the job runner, the readers) is not the advances'.
  const idleCpuBefore = cpuMsByProcess(processName);
  const idleCommitsBefore = await pgCommits();
  const idleT0 = performance.now();
  await sleep(IDLE_SECONDS * 1000);
  const idleSeconds = (performance.now() - idleT0) / 1000;
  const idleCpuAfter = cpuMsByProcess(processName);
  const idleCommits = (await pgCommits()) - idleCommitsBefore;
  const idlePerSecond = (name: string) =>
    round2(((idleCpuAfter?.[name] ?? 0) - (idleCpuBefore?.[name] ?? 0)) / idleSeconds);

  // One session, one advance at a time: the advance's own latency with nothing else in the way.
  const serial = { ms: [] as number[] };
  const one = sessions[0]!;
  const serialStart = new Date();
  for (let i = 0; i < SERIAL; i++) {
    const a = await call(one.key, "POST", `/v1/sandbox/sessions/${one.id}/advance`, ADVANCE);
    if (a.status !== 200) throw new Error(`serial advance: ${a.status} ${JSON.stringify(a.body)}`);
    serial.ms.push(a.ms);
  }
  const serialTrips = await db().$queryRaw<{ ms: number }[]>`
    SELECT EXTRACT(EPOCH FROM (applied_at - created_at)) * 1000 AS ms FROM sandbox_advances
     WHERE session_id = ${one.id} AND created_at >= ${serialStart} AND applied_at IS NOT NULL`;

  // The load: each session advances every 1/RATE s, one in flight at a time.
  const commitsBefore = await pgCommits();
  const loadAtStart = os.loadavg();
  const cpuBefore = cpuMsByProcess(processName);
  const windowStart = new Date();
  const t0 = performance.now();
  const deadline = t0 + SECONDS * 1000;
  const advances = {
    ms: [] as number[],
    allMs: [] as number[],
    pending: 0,
    failed: {} as Record<string, number>,
  };
  await Promise.all(
    sessions.map(async (s, i) => {
      // spread the sessions' ticks over the first period
      // A session behind its schedule sends at once; the window ends at the deadline however far
      // behind it is (what was not sent is `asked` minus `answered`).
      let next = t0 + (i * 1000) / RATE / sessions.length;
      while (next < deadline && performance.now() < deadline) {
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
        next += 1000 / RATE;
        const a = await call(s.key, "POST", `/v1/sandbox/sessions/${s.id}/advance`, ADVANCE);
        advances.allMs.push(a.ms);
        if (a.status !== 200) {
          const code = `${a.status} ${a.body?.error?.code ?? ""}`.trim();
          advances.failed[code] = (advances.failed[code] ?? 0) + 1;
          continue;
        }
        advances.ms.push(a.ms);
        if (a.body.pending_wh > 0) advances.pending += 1;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpuAfter = cpuMsByProcess(processName);
  const windowEnd = new Date();
  const loadAtEnd = os.loadavg();
  // What the readers have not read yet of the window is read before they stop.
  await sleep(3_000);
  measuring = false;
  await Promise.all(readers);
  const commits = (await pgCommits()) - commitsBefore;

  // What the window wrote: advances (and their trip through the charger) and events.
  const ids = sessions.map((s) => s.id);
  const trips = await db().$queryRaw<{ ms: number; applied: boolean }[]>`
    SELECT EXTRACT(EPOCH FROM (coalesce(applied_at, now()) - created_at)) * 1000 AS ms,
           applied_at IS NOT NULL AS applied
      FROM sandbox_advances
     WHERE session_id = ANY(${ids}) AND created_at >= ${windowStart} AND created_at < ${windowEnd}`;
  const written = await db().$queryRaw<{ type: string; n: bigint }[]>`
    SELECT e.type, count(*) AS n FROM events e JOIN tenants t ON t.id = e.tenant_id
     WHERE t.kind = 'sandbox' AND e.created_at >= ${windowStart} AND e.created_at < ${windowEnd}
     GROUP BY e.type ORDER BY e.type`;
  const eventsWritten = written.reduce((sum, r) => sum + Number(r.n), 0);

  // Stop and settle every session (not measured beyond how long it took).
  const stopT0 = performance.now();
  await Promise.all(sessions.map((s) => must(s.key, "POST", `/v1/sessions/${s.id}/stop`)));
  let settled = 0;
  const settleBy = Date.now() + 120_000;
  await Promise.all(
    sessions.map(async (s) => {
      while (Date.now() < settleBy) {
        const now = await must(s.key, "GET", `/v1/sessions/${s.id}`);
        if (now.status === "settled") return void (settled += 1);
        await sleep(1_000);
      }
    }),
  );
  const stopSeconds = (performance.now() - stopT0) / 1000;

  const done = advances.ms.length;
  const cpu = (name: string) => (cpuAfter?.[name] ?? 0) - (cpuBefore?.[name] ?? 0);
  const perAdvance = (name: string) => (done ? round2(cpu(name) / done) : null);
  const generatorCpu = processCpuMs(process.pid);
  const result = {
    benchmark: "sandbox",
    date: new Date().toISOString(),
    machine: { ...machine(loadAtStart), load_average_1_5_15_at_window_end: loadAtEnd.map(round2) },
    setup: {
      sessions: sessions.length,
      workspaces: workspaces.length,
      virtual_chargers: virtualChargers,
      advance: ADVANCE,
      asked_per_session_per_second: RATE,
      seconds: round2(seconds),
      sessions_charging_after_seconds: round2(startSeconds),
    },
    at_rest: {
      seconds: round2(idleSeconds),
      cpu_ms_per_second: {
        gateway: idlePerSecond("gateway"),
        web: idlePerSecond("web"),
        postgres: idlePerSecond("postgres"),
        load_generator: idlePerSecond("load_generator"),
      },
      postgres_commits_per_second: round2(idleCommits / idleSeconds),
    },
    one_at_a_time: {
      advances: serial.ms.length,
      answer: latency(serial.ms),
      trip_created_to_applied: latency(serialTrips.map((t) => Number(t.ms))),
    },
    advances: {
      asked: Math.floor(SECONDS * RATE) * sessions.length,
      answered_200: done,
      refused: advances.failed,
      per_second: round2(done / seconds),
      per_session_per_second: round2(done / seconds / sessions.length),
      answer: latency(advances.ms),
      answer_refused_included: latency(advances.allMs),
      answered_still_pending: advances.pending,
      trip_created_to_applied: {
        rows: trips.length,
        not_applied_at_window_end: trips.filter((t) => !t.applied).length,
        ...latency(trips.map((t) => Number(t.ms))),
      },
    },
    events: {
      written_per_second: round2(eventsWritten / seconds),
      written_by_type: Object.fromEntries(written.map((r) => [r.type, Number(r.n)])),
      read_per_second: round2(read.events / seconds),
      read_by_type: read.byType,
      reader_lag: latency(read.lagMs),
      reader_refused_by_status: read.refused,
    },
    cpu: {
      window_ms: {
        gateway: cpu("gateway"),
        web: cpu("web"),
        postgres: cpu("postgres"),
        load_generator: cpu("load_generator"),
      },
      per_advance_ms: {
        gateway: perAdvance("gateway"),
        web: perAdvance("web"),
        postgres: perAdvance("postgres"),
        load_generator: perAdvance("load_generator"),
      },
      per_advance_beyond_at_rest_ms: Object.fromEntries(
        ["gateway", "web", "postgres"].map((name) => [
          name,
          done ? round2((cpu(name) - idlePerSecond(name) * seconds) / done) : null,
        ]),
      ),
      gateway_per_virtual_charger_percent_of_a_core: round2(
        (cpu("gateway") / (seconds * 1000) / virtualChargers) * 100,
      ),
      gateway_per_session_percent_of_a_core: round2(
        (cpu("gateway") / (seconds * 1000) / sessions.length) * 100,
      ),
      load_generator_whole_run_ms: generatorCpu,
    },
    postgres_commits_per_advance: done ? round2(commits / done) : null,
    postgres_commits_per_advance_beyond_at_rest: done
      ? round2((commits - (idleCommits / idleSeconds) * seconds) / done)
      : null,
    stop: { settled, of: sessions.length, seconds: round2(stopSeconds) },
    outside_window_5xx_retried: outsideWindow5xx,
  };
  await closeDb();
  writeResult("sandbox", result);
} catch (error) {
  // what the product logged (an internal error's cause is there, by its request id)
  console.error(product.output().slice(-20_000));
  throw error;
} finally {
  await product.stop();
}
