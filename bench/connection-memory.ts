/**
 * What one held charger connection costs the gateway in memory, and where it goes: a gateway
 * (`createGateway` behind the product's listener, as ocpp/main.ts runs it) in this process,
 * chargers in simulator processes, and the process's memory and a heap census (bench/heap-census.ts)
 * at idle and while holding N connections with heartbeats on.
 * Run: `npx tsx bench/connection-memory.ts` (BENCH_CONNECTIONS, default 2000).
 * Writes bench/results/connection-memory.json.
 */
import type { AddressInfo } from "node:net";
import os from "node:os";
import { benchLocation, cheapPasswordHash, insertBenchStations } from "./bench-stations";
import { startFleet } from "./charger-fleet";
import { machine, round2, scratchDatabase, writeResult } from "./harness";
import { heapCensus, collect, perThing } from "./heap-census";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 2000);
const RATE = Number(process.env.BENCH_CONNECT_RATE ?? 100);
const PASSWORD = "bench-password-000001";

const database = await scratchDatabase("connection-memory", { LOG_LEVEL: "warn" });
const { db, closeDb } = await import("../server/db");
const { createGateway } = await import("../ocpp/gateway");
const { createOcppServer } = await import("../ocpp/http-server");

const loadAtStart = os.loadavg();
const memory = () => {
  collect();
  const m = process.memoryUsage();
  return {
    rss: m.rss,
    heapTotal: m.heapTotal,
    heapUsed: m.heapUsed,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
  };
};
try {
  const owner = await db().user.create({ data: { email: "bench@example.com" } });
  const team = await db().team.create({
    data: { name: "Bench", members: { create: { userId: owner.id, role: "owner" } } },
  });
  const tenant = await db().tenant.create({ data: { teamId: team.id, name: "Memory" } });
  const location = await benchLocation(db(), tenant.id);
  const prefix = `MEM-${Date.now().toString(36)}-`;
  await insertBenchStations(db(), {
    tenants: [location],
    prefix,
    first: 0,
    count: CONNECTIONS,
    passwordHash: cheapPasswordHash(PASSWORD),
  });
  const gateway = await createGateway({ db: db(), databaseUrl: database.url });
  const server = createOcppServer({ gateway, db: db() });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ocpp`;

  // Warm: one charger connects, heartbeats and leaves, so code and caches are in the baseline.
  const warm = startFleet({
    urls: [url],
    prefix,
    first: 0,
    count: 1,
    password: PASSWORD,
    ratePerSecond: 10,
    heartbeatMs: 100,
  });
  await warm.ready;
  warm.hold();
  await new Promise((r) => setTimeout(r, 500));
  await warm.stop();
  await new Promise((r) => setTimeout(r, 500));

  // Memory first, censuses after: a census's own allocations would stay in the process's RSS.
  // Two tranches (a quarter, then the rest): the growth between them is what one more connection
  // costs, free of what any load costs once (JIT code, the young generation growing, pools).
  const idle = memory();
  const tranche = async (first: number, count: number) => {
    const fleet = startFleet({
      urls: [url],
      prefix,
      first,
      count,
      password: PASSWORD,
      ratePerSecond: RATE,
      heartbeatMs: 5000,
    });
    const ready = await fleet.ready;
    fleet.hold();
    return { fleet, ready };
  };
  const quarter = Math.round(CONNECTIONS / 4);
  const a = await tranche(0, quarter);
  await new Promise((r) => setTimeout(r, 10_000));
  // Sockets held (a connection costs its memory from the upgrade on, recorded or not).
  const nA = a.ready.connected;
  const heldA = memory();
  const b = await tranche(quarter, CONNECTIONS - quarter);
  await new Promise((r) => setTimeout(r, 10_000));
  const n = a.ready.connected + b.ready.connected;
  const recorded = gateway.connectionCount();
  const held = memory();
  const heldCensus = await heapCensus();
  const beats = [await a.fleet.stop(), await b.fleet.stop()];
  // The baseline census: every charger gone (and its disconnect recorded), code as warm as held.
  // (A socket's objects live until its disconnect is recorded: the close handler holds them.)
  // (Up to two minutes: a gateway that loses disconnect records would leave them online.)
  for (let i = 0; i < 600; i++) {
    const online = await db().station.count({ where: { gatewayId: gateway.id } });
    if (online === 0 && gateway.connectionCount() === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 2000));
  const idleCensus = await heapCensus();
  const kib = (from: typeof idle, to: typeof idle, count: number) =>
    Object.fromEntries(
      (Object.keys(idle) as (keyof typeof idle)[]).map((k) => [
        k,
        round2((to[k] - from[k]) / 1024 / count),
      ]),
    );
  const mb = (m: typeof idle) =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, round2(v / 2 ** 20)]));
  writeResult("connection-memory", {
    benchmark: "connection-memory",
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    connections: {
      attempted: CONNECTIONS,
      connected: a.ready.connected + b.ready.connected,
      failed: a.ready.failed + b.ready.failed,
      retries: a.ready.retries + b.ready.retries,
      held_first_tranche: nA,
      held: n,
      recorded_when_measured: recorded,
      heartbeats: beats[0]!.heartbeats + beats[1]!.heartbeats,
      heartbeat_errors: beats[0]!.heartbeatErrors + beats[1]!.heartbeatErrors,
    },
    kib_per_connection: {
      marginal: kib(heldA, held, n - nA),
      average_over_idle: kib(idle, held, n),
    },
    mb: { idle: mb(idle), held_first_tranche: mb(heldA), held: mb(held) },
    heap_per_connection: perThing(idleCensus, heldCensus, n),
  });
  await gateway.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
} finally {
  await closeDb();
  await database.stop();
}
