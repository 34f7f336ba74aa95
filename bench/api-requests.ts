/**
 * What counting /v1 requests for team usage costs (server/team-billing/README.md, API requests):
 * (1) the counter's own cost per request (`count`, a Map increment), in a tight loop;
 * (2) /v1 requests per second, and this process's CPU per request, through the real router
 *     in-process (no socket, no Next.js), with the process's counter and with it replaced by one
 *     that counts nothing, taking turns in slices so the machine's other load falls on both
 *     alike: `GET /v1/tenants/{id}` by project keys of BENCH_TENANTS projects, BENCH_CONCURRENCY
 *     at a time; and how many counted requests the database holds after the last flush;
 * (3) one flush: the single upsert of a batch of 10 and of 1,000 (tenant, day) rows.
 *
 *   npx tsx bench/api-requests.ts   env BENCH_SECONDS (default 2 per slice, 8 slices each way, in turns),
 *                                   BENCH_CONCURRENCY (default 16), BENCH_TENANTS (default 8)
 *
 * Writes bench/results/api-requests.json.
 */
import os from "node:os";
import { inProcessV1, machine, round2 as round, scratchDatabase, writeResult } from "./harness";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TENANTS = Number(process.env.BENCH_TENANTS ?? 8);
const SLICES = 8;

const database = await scratchDatabase("api-requests");
const { db, closeDb } = await import("../server/db");
const { createApiKey } = await import("../server/keys/create-api-key");
const { handleV1 } = await import("../server/http/routes");
const { ApiRequestCounter, apiRequestCounter } =
  await import("../server/team-billing/api-requests");
const v1 = inProcessV1(handleV1);

/** Counts nothing: what the router costs without counting. */
class NoCounter extends ApiRequestCounter {
  override count() {}
}
const slot = globalThis as unknown as {
  __apiRequestCounter?: InstanceType<typeof ApiRequestCounter>;
};

const loadAtStart = os.loadavg();
try {
  // (1) the counter alone: 10 million counts over TENANTS tenants, today
  const alone = new ApiRequestCounter();
  const N = 10_000_000;
  const now = Date.now();
  for (let i = 0; i < 100_000; i++) alone.count(1 + (i % TENANTS), now); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) alone.count(1 + (i % TENANTS), now);
  const countNs = Number(process.hrtime.bigint() - t0) / N;

  // (2) through the router
  const owner = await db().user.create({ data: { email: "bench@example.com" } });
  const team = await db().team.create({
    data: { name: "Bench", members: { create: { userId: owner.id, role: "owner" } } },
  });
  const keys: { tenantId: number; key: string }[] = [];
  for (let i = 0; i < TENANTS; i++) {
    const tenant = await db().tenant.create({ data: { teamId: team.id, name: `P${i}` } });
    const { secret, id } = await createApiKey({
      tenantId: tenant.id,
      ownerUserId: owner.id,
      scopes: ["stations:read"],
    });
    // the limiter still runs its statement; it never refuses here
    await db().apiKey.update({ where: { id }, data: { rateLimitPerMinute: 1_000_000_000 } });
    keys.push({ tenantId: tenant.id, key: secret });
  }
  const counting = apiRequestCounter(); // the process's, flushing every 5 s
  const noCounting = new NoCounter();
  const slice = async () => {
    let done = 0;
    let next = 0;
    const until = performance.now() + SECONDS * 1000;
    const worker = async () => {
      while (performance.now() < until) {
        const k = keys[next++ % keys.length]!;
        await v1(k.key, "GET", `/v1/tenants/${k.tenantId}`);
        done += 1;
      }
    };
    const cpu = process.cpuUsage();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const used = process.cpuUsage(cpu);
    return { rate: done / SECONDS, cpuUs: (used.user + used.system) / done };
  };
  const countedBefore = await db().apiRequestCount.aggregate({ _sum: { count: true } });
  slot.__apiRequestCounter = noCounting;
  await slice(); // warm-up
  const withRates: number[] = [];
  const withoutRates: number[] = [];
  const withCpu: number[] = [];
  const withoutCpu: number[] = [];
  let countedRequests = 0;
  // with, without, without, with, …: neither goes first every time
  for (let i = 0; i < SLICES * 2; i++) {
    const withCounting = i % 4 === 0 || i % 4 === 3;
    slot.__apiRequestCounter = withCounting ? counting : noCounting;
    const { rate, cpuUs } = await slice();
    if (withCounting) {
      withRates.push(rate);
      withCpu.push(cpuUs);
      countedRequests += rate * SECONDS;
    } else {
      withoutRates.push(rate);
      withoutCpu.push(cpuUs);
    }
  }
  slot.__apiRequestCounter = counting;
  await counting.flush();
  const countedAfter = await db().apiRequestCount.aggregate({ _sum: { count: true } });
  const written = Number(countedAfter._sum.count ?? 0) - Number(countedBefore._sum.count ?? 0);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

  // (3) one flush of 10 and of 1,000 rows (tenants × days), into rows that exist (the upsert's
  // update path, as every flush after a day's first)
  const many = await db().$queryRaw<{ id: number }[]>`
    INSERT INTO tenants (team_id, name) SELECT ${team.id}, 'F' || g FROM generate_series(1, 1000) g
    RETURNING id`;
  const flushMs = async (rows: number) => {
    const times: number[] = [];
    for (let r = 0; r < 6; r++) {
      const c = new ApiRequestCounter();
      for (let i = 0; i < rows; i++) for (let n = 0; n < 3; n++) c.count(many[i]!.id, now);
      const start = performance.now();
      if (!(await c.flush())) throw new Error("flush failed");
      if (r > 0) times.push(performance.now() - start); // the first creates the rows
    }
    return round(median(times));
  };
  const flush10 = await flushMs(10);
  const flush1000 = await flushMs(1000);

  const report = {
    benchmark: "api-requests: the cost of counting /v1 requests per tenant and day",
    measured_at: new Date().toISOString(),
    machine: machine(loadAtStart),
    count_ns_per_request: round(countNs),
    router: {
      route: "GET /v1/tenants/{tenant_id} by project keys, in-process",
      concurrency: CONCURRENCY,
      tenants: TENANTS,
      seconds_per_slice: SECONDS,
      slices_each: SLICES,
      with_counting_rps: withRates.map(round),
      without_counting_rps: withoutRates.map(round),
      with_counting_median_rps: round(median(withRates)),
      without_counting_median_rps: round(median(withoutRates)),
      // this process's CPU per request (the router, Prisma, pg; not PostgreSQL's)
      with_counting_cpu_us_per_request: withCpu.map(round),
      without_counting_cpu_us_per_request: withoutCpu.map(round),
      with_counting_median_cpu_us: round(median(withCpu)),
      without_counting_median_cpu_us: round(median(withoutCpu)),
      counted_requests: Math.round(countedRequests),
      written_to_database: written,
    },
    flush_ms_median: { rows_10: flush10, rows_1000: flush1000 },
  };
  console.log(
    `count(): ${report.count_ns_per_request} ns per request; router ${report.router.with_counting_median_rps} req/s counting vs ` +
      `${report.router.without_counting_median_rps} without (CPU ${report.router.with_counting_median_cpu_us} vs ` +
      `${report.router.without_counting_median_cpu_us} µs per request); ${written} of ${report.router.counted_requests} counted requests written; ` +
      `flush of 10 rows ${flush10} ms, of 1,000 rows ${flush1000} ms`,
  );
  writeResult("api-requests", report);
} finally {
  await apiRequestCounter().stop(); // no flush after the pools close
  await closeDb();
  await database.stop();
}
