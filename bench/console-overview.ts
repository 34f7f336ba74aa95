/**
 * The console's overview and transaction pages against a large project: one project with 1,000
 * stations and 100,000 transactions over 30 days (final bills, a few open faults, some still
 * running), plus one 24-hour transaction with a meter sample every 10 s (8,640). Measures, one
 * request at a time after a warm-up, against the product as `npm start` runs it: the overview's
 * data (`GET /v1/tenants/{id}/overview`), the overview page server-rendered with a signed-in
 * session (time to first byte and to the last byte; the page is a shell whose figures the browser
 * then reads through the console's tRPC `v1.getOverview`, measured too, with the same cookie), and
 * the transaction page's data (the transaction and its meter samples). Goal (issue 25): under 500 ms median each.
 * Run: `npm run bench -- console-overview` (env `BENCH_REQUESTS`, default 50).
 * Writes bench/results/console-overview.json.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encode } from "next-auth/jwt";
import { loopback, startProduct } from "../e2e/fixtures/product";
import { closeDb, db } from "../server/db";
import { benchLocation, cheapPasswordHash, insertBenchStations } from "./bench-stations";
import { machine, percentile, round2, writeResult } from "./harness";
import { bootstrapProject } from "./product-project";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50);
const WARM_UP = 10;
const STATIONS = 1_000;
const TRANSACTIONS = 100_000;
const SAMPLES = 8_640; // 24 h at 10 s

/** The project's bulk rows, each table in one INSERT … SELECT, shaped as the product writes them. */
async function seed(tenantId: number) {
  const t0 = performance.now();
  const location = await benchLocation(db(), tenantId);
  await insertBenchStations(db(), {
    tenants: [location],
    prefix: "OVERVIEW-",
    first: 1,
    count: STATIONS,
    passwordHash: cheapPasswordHash("bench-password"),
  });
  // 70% online and booted; connectors in a spread of states (a tenth charging, a few faulted).
  await db().$executeRaw`
    UPDATE stations SET gateway_id = CASE WHEN id % 10 < 7 THEN 'bench-gateway' END,
           protocol = 'ocpp1.6', connected_at = now() - interval '2 days',
           booted_at = now() - interval '2 days' + (id % 100) * interval '1 minute',
           boot_vendor = 'Bench', boot_model = 'BX-1', last_seen_at = now()
     WHERE tenant_id = ${tenantId}`;
  await db().$executeRaw`
    UPDATE connectors SET status = CASE WHEN station_id % 10 = 0 THEN 'Charging'
                                        WHEN station_id % 97 = 0 THEN 'Faulted'
                                        ELSE 'Available' END,
           ocpp_status = CASE WHEN station_id % 10 = 0 THEN 'Charging'
                              WHEN station_id % 97 = 0 THEN 'Faulted'
                              ELSE 'Available' END,
           status_updated_at = now() - interval '1 hour'
     WHERE tenant_id = ${tenantId}`;
  const [tariff] = await db().$queryRaw<{ id: number }[]>`
    INSERT INTO tariffs (tenant_id, name, updated_at) VALUES (${tenantId}, 'Bench', now())
    RETURNING id`;
  await db().$executeRaw`
    INSERT INTO tariff_versions (tariff_id, version, snapshot)
    VALUES (${tariff!.id}, 1, '{"currency":"USD","elements":[{"price_components":[{"type":"ENERGY","price":0.3}]}]}')`;
  // Transactions spread evenly over the last 30 days, 20 to 120 minutes each; the 50 newest
  // (one per station on 50 stations) still running.
  await db().$executeRaw`
    WITH st AS (
      SELECT (row_number() OVER (ORDER BY s.id) - 1)::int AS k, s.id, c.id AS connector_id
        FROM stations s JOIN connectors c ON c.station_id = s.id
       WHERE s.tenant_id = ${tenantId}
    ), g AS (
      SELECT i, now() - (i::float8 / ${TRANSACTIONS}) * interval '30 days' AS started_at,
             (20 + (i * 7919) % 100) * interval '1 minute' AS duration,
             (1000 + (i::bigint * 104729) % 60000)::int AS wh
        FROM generate_series(1, ${TRANSACTIONS}::int) AS i
    )
    INSERT INTO transactions (tenant_id, station_id, connector_id, reference, id_token, started_at,
                              ended_at, meter_start_wh, meter_stop_wh, energy_wh, stop_reason,
                              created_at, updated_at)
    SELECT ${tenantId}, st.id, st.connector_id, 'bench-' || g.i, 'TOKEN' || (g.i % 5000),
           g.started_at,
           CASE WHEN g.i > 50 THEN g.started_at + g.duration END,
           g.i * 100, CASE WHEN g.i > 50 THEN g.i * 100 + g.wh END, g.wh,
           CASE WHEN g.i > 50 THEN 'Local' END, g.started_at,
           COALESCE(CASE WHEN g.i > 50 THEN g.started_at + g.duration END, now())
      FROM g JOIN st ON st.k = g.i % ${STATIONS}`;
  // A final bill for nine ended transactions of ten, finalized when the transaction ended.
  await db().$executeRaw`
    INSERT INTO bills (id, tenant_id, station_id, connector_id, tariff_id, tariff_version, source,
                       billing_version, status, hold_minor, charging_token, transaction_id,
                       energy_wh, duration_seconds, subtotal_minor, total_minor, price_summary,
                       finalized_at, created_by, created_at, updated_at)
    SELECT 'bill_' || md5('bench-bill-' || t.id), t.tenant_id, t.station_id, t.connector_id,
           ${tariff!.id}, 1, 'csms', 'energy-v1', 'final', 5000, md5('bench-token-' || t.id), t.id,
           t.energy_wh, extract(epoch FROM t.ended_at - t.started_at)::int,
           (t.energy_wh * 3 / 10), (t.energy_wh * 3 / 10), 'Energy at $0.30/kWh',
           t.ended_at, 'bench', t.started_at, t.ended_at
      FROM transactions t
     WHERE t.tenant_id = ${tenantId} AND t.ended_at IS NOT NULL AND t.id % 10 <> 0`;
  // A few open faults (with the faulted connectors above) and many cleared ones.
  await db().$executeRaw`
    INSERT INTO faults (tenant_id, station_id, connector_id, evse_number, error_code, info,
                        ocpp_status, opened_at, cleared_at)
    SELECT s.tenant_id, s.id, c.id, 1, 'GroundFailure', 'bench fault', 'Faulted',
           now() - (s.id % 500) * interval '1 hour',
           CASE WHEN s.id % 97 = 0 THEN NULL ELSE now() - (s.id % 400) * interval '1 hour' END
      FROM stations s JOIN connectors c ON c.station_id = s.id
     WHERE s.tenant_id = ${tenantId}`;
  // The 24-hour session: ended an hour ago, a sample every 10 s.
  const [day] = await db().$queryRaw<{ id: number }[]>`
    INSERT INTO transactions (tenant_id, station_id, connector_id, reference, id_token, started_at,
                              ended_at, meter_start_wh, meter_stop_wh, energy_wh, stop_reason,
                              created_at, updated_at)
    SELECT s.tenant_id, s.id, c.id, 'bench-day', 'TOKENDAY', now() - interval '25 hours',
           now() - interval '1 hour', 1000000, 1000000 + ${SAMPLES} * 25, ${SAMPLES} * 25, 'Local',
           now() - interval '25 hours', now() - interval '1 hour'
      FROM stations s JOIN connectors c ON c.station_id = s.id
     WHERE s.tenant_id = ${tenantId} ORDER BY s.id LIMIT 1
    RETURNING id`;
  await db().$executeRaw`
    INSERT INTO meter_samples (tenant_id, transaction_id, sampled_at, energy_wh, power_kw,
                               current_a, voltage_v, soc_percent, context)
    SELECT ${tenantId}, ${day!.id}, now() - interval '25 hours' + i * interval '10 seconds',
           i * 25, to_char(7 + (i % 37) / 10.0, 'FM990.0'), to_char(32 - (i % 11) / 10.0, 'FM990.0'),
           '230.0', least(100, 20 + i / 108)::text, 'Sample.Periodic'
      FROM generate_series(1, ${SAMPLES}::int) AS i`;
  await db().$executeRawUnsafe(
    "ANALYZE stations, connectors, transactions, bills, faults, meter_samples",
  );
  return { transactionId: day!.id, seconds: round2((performance.now() - t0) / 1000) };
}

/** Times `n` requests one after another: to the response's headers and to its last byte. */
async function timed(n: number, url: string, headers: Record<string, string>) {
  const ttfb: number[] = [];
  const total: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers, redirect: "manual" });
    const t1 = performance.now();
    const body = await res.arrayBuffer();
    const t2 = performance.now();
    if (res.status !== 200)
      throw new Error(`GET ${url}: ${res.status} ${Buffer.from(body).toString()}`);
    ttfb.push(t1 - t0);
    total.push(t2 - t0);
    bytes = body.byteLength;
  }
  return { ttfb, total, bytes };
}

/** Median, p95 and the slowest, nearest-rank (bench/percentiles.ts). */
function latency(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50_ms: round2(percentile(sorted, 50)),
    p95_ms: round2(percentile(sorted, 95)),
    max_ms: round2(sorted.at(-1) ?? 0),
  };
}

async function measure(url: string, headers: Record<string, string>) {
  await timed(WARM_UP, url, headers);
  const { ttfb, total, bytes } = await timed(REQUESTS, url, headers);
  return { requests: REQUESTS, bytes, ttfb: latency(ttfb), complete: latency(total) };
}

/**
 * Where the overview's and the samples' time goes in PostgreSQL: EXPLAIN ANALYZE of the overview's
 * heaviest statements (its 30-day aggregations, as server/overview/overview.ts writes them, in UTC)
 * and of the samples' read; the plans are printed, their execution times kept.
 */
async function explain(tenantId: number, transactionId: number) {
  const day = `date_trunc('day', now() AT TIME ZONE 'UTC')`;
  const statements = {
    stations: `SELECT count(*) FILTER (WHERE s.gateway_id IS NOT NULL),
                      count(*) FILTER (WHERE EXISTS (SELECT 1 FROM connectors c
                        WHERE c.station_id = s.id AND c.status = 'Charging'))
                 FROM stations s WHERE s.tenant_id = ${tenantId}`,
    energy_30_days: `SELECT date_trunc('day', t.started_at AT TIME ZONE 'UTC'), sum(t.energy_wh)
                       FROM transactions t WHERE t.tenant_id = ${tenantId}
                        AND t.started_at >= (${day} - interval '29 days') AT TIME ZONE 'UTC' GROUP BY 1`,
    revenue_30_days: `SELECT date_trunc('day', b.finalized_at AT TIME ZONE 'UTC'), sum(b.total_minor)
                        FROM bills b WHERE b.tenant_id = ${tenantId} AND b.status = 'final'
                         AND b.finalized_at >= (${day} - interval '29 days') AT TIME ZONE 'UTC' GROUP BY 1`,
    meter_samples: `SELECT * FROM meter_samples WHERE transaction_id = ${transactionId}
                     ORDER BY sampled_at LIMIT 8641`,
  };
  const ms: Record<string, number> = {};
  for (const [name, sql] of Object.entries(statements)) {
    const rows = await db().$queryRawUnsafe<{ "QUERY PLAN": string }[]>(
      `EXPLAIN (ANALYZE, BUFFERS) ${sql}`,
    );
    const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
    console.log(`${name}:\n${plan}\n`);
    ms[name] = Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1] ?? NaN);
  }
  return ms;
}

const product = await startProduct();
const base = loopback(product.baseUrl);
try {
  const boot = await bootstrapProject(product, "Overview");
  const tenant = boot.tenant_id;
  const seeded = await seed(tenant);
  const executionMs = await explain(tenant, seeded.transactionId);
  await closeDb();
  const api = { authorization: `Bearer ${boot.api_key.secret}` };

  // A console session as Auth.js writes it after sign-in (a JWT under the product's derived
  // secret, the same derivation as server/auth/oidc-provider.ts's `derivedSecret("auth.js")`).
  const secretKey = fs.readFileSync(path.join(product.dataDir, "secret.key"), "utf8").trim();
  const cookieName = "authjs.session-token"; // http: no __Secure- prefix
  const sessionToken = await encode({
    token: { sub: String(boot.user_id), userId: boot.user_id, email: "bench@example.com" },
    secret: crypto.createHmac("sha256", secretKey).update("auth.js").digest("base64url"),
    salt: cookieName,
  });
  const signedIn = { cookie: `${cookieName}=${sessionToken}` };

  const loadAtStart = os.loadavg();
  const overview = await measure(`${base}/v1/tenants/${tenant}/overview`, api);
  const page = await measure(`${base}/console/t/${tenant}/overview`, signedIn);
  // What the page's browser then asks for its figures: the same overview through the console's
  // tRPC endpoint (httpBatchLink's GET, the session cookie), as components/console/pages/overview.tsx.
  const trpcInput = { 0: { params: { tenant_id: tenant }, query: { time_zone: "UTC" } } };
  const pageData = await measure(
    `${base}/api/trpc/v1.getOverview?batch=1&input=${encodeURIComponent(JSON.stringify(trpcInput))}`,
    signedIn,
  );
  const transaction = await measure(
    `${base}/v1/tenants/${tenant}/transactions/${seeded.transactionId}`,
    api,
  );
  const samples = await measure(
    `${base}/v1/tenants/${tenant}/transactions/${seeded.transactionId}/meter-samples`,
    api,
  );
  writeResult("console-overview", {
    benchmark: "console-overview",
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    seeded: {
      stations: STATIONS,
      transactions: TRANSACTIONS + 1,
      meter_samples: SAMPLES,
      seconds: seeded.seconds,
    },
    postgres_execution_ms: executionMs,
    warm_up: WARM_UP,
    goal_ms_median: 500,
    overview_data: { route: "GET /v1/tenants/{id}/overview", ...overview },
    overview_page: { route: "GET /console/t/{id}/overview (signed in)", ...page },
    overview_page_data: { route: "GET /api/trpc/v1.getOverview (signed in)", ...pageData },
    transaction: { route: "GET /v1/tenants/{id}/transactions/{id}", ...transaction },
    meter_samples: {
      route: "GET /v1/tenants/{id}/transactions/{id}/meter-samples",
      ...samples,
    },
  });
} finally {
  await product.stop();
}
