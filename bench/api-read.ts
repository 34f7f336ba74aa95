/**
 * What authentication, rate limiting and the tenant's read cost: GET one station with a valid key
 * versus `GET /v1` (discovery: public, no database) of the same production app, through the same
 * Next route handler and /v1 router, at fixed concurrency, in the same run.
 * Run: `npx tsx bench/api-read.ts` (builds the app on first use). Writes bench/results/api-read.json.
 */
import fs from "node:fs";
import os from "node:os";
import { loopback, startProduct } from "../e2e/fixtures/product";
import { closeDb, db, useDatabaseUrl } from "../server/db";
import { startEmbeddedDatabase } from "../server/db/embedded";
import { createApiKey } from "../server/keys/create-api-key";
import { runLoad } from "./load";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const KEYS = 40; // spread over keys so the per-key limit (1200/min max) is not what is measured

const product = await startProduct();
// The product answers at its public name, which only a browser resolves; this process uses loopback.
const base = loopback(product.baseUrl);
try {
  const boot = product.admin([
    "bootstrap",
    "--email",
    "bench@example.com",
    "--team",
    "Bench",
    "--project",
    "Bench",
  ]);
  const tenant = boot.tenant_id as number;
  // Keys straight in the product's database (its running embedded server), each at the maximum
  // per-key limit, so the run measures the limiter's cost, not its refusals.
  useDatabaseUrl(
    (await startEmbeddedDatabase({ dataDir: product.dataDir, reuseRunning: true })).url,
  );
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const key = await createApiKey({
      tenantId: tenant,
      ownerUserId: boot.user_id as number,
      scopes: ["stations:read", "stations:write"],
    });
    await db().apiKey.update({ where: { id: key.id }, data: { rateLimitPerMinute: 1200 } });
    keys.push(key.secret);
  }
  await closeDb();
  const auth = { authorization: `Bearer ${keys[0]}`, "content-type": "application/json" };
  const location = await (
    await fetch(`${base}/v1/tenants/${tenant}/locations`, {
      method: "POST",
      headers: { ...auth, "idempotency-key": `bench-location-${Date.now()}` },
      body: JSON.stringify({
        name: "Bench",
        address: { street: "1 Bench St", city: "Austin", country: "US" },
        coordinates: { latitude: 30, longitude: -97 },
        time_zone: "America/Chicago",
      }),
    })
  ).json();
  const station = await (
    await fetch(`${base}/v1/tenants/${tenant}/stations`, {
      method: "POST",
      headers: { ...auth, "idempotency-key": `bench-station-${Date.now()}` },
      body: JSON.stringify({
        name: `BENCH-${Date.now()}`,
        location_id: location.id,
        connector_count: 2,
      }),
    })
  ).json();
  const stationUrl = `${base}/v1/tenants/${tenant}/stations/${station.id}`;
  // The baseline: the app's cheapest /v1 route, so both sides pay for Next.js and the router alike.
  const baselineUrl = `${base}/v1`;
  // warm up both routes (JIT, connection pools)
  await runLoad({ url: baselineUrl, concurrency: 4, seconds: 2 });
  await runLoad({
    url: stationUrl,
    concurrency: 4,
    seconds: 2,
    headers: (i) => ({ authorization: `Bearer ${keys[i % KEYS]}` }),
  });
  const baseline = await runLoad({ url: baselineUrl, concurrency: CONCURRENCY, seconds: SECONDS });
  const read = await runLoad({
    url: stationUrl,
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    headers: (i) => ({ authorization: `Bearer ${keys[i % KEYS]}` }),
  });
  const result = {
    benchmark: "api-read",
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    concurrency: CONCURRENCY,
    seconds_per_route: SECONDS,
    keys: KEYS,
    baseline: { route: "GET /v1", ...baseline },
    get_station: read,
    ratio_rps: Math.round((read.rps / baseline.rps) * 100) / 100,
    ratio_p50: Math.round((read.p50_ms / baseline.p50_ms) * 100) / 100,
  };
  console.log(JSON.stringify(result, null, 2));
  fs.mkdirSync("bench/results", { recursive: true });
  fs.writeFileSync("bench/results/api-read.json", `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await product.stop();
}
