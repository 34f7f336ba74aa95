/**
 * Gateways scale out over PostgreSQL: four `ocpp` processes (ocpp/main.ts, the product's entry,
 * each on its own port) on one database, chargers spread over them from simulator processes, and
 * commands through the real /v1 router (in this process, as bench/bills.ts runs it) to stations
 * on every gateway. Each command must reach the charger whose socket its station's gateway holds:
 * the simulators record every call their chargers receive, and the benchmark counts mismatches.
 * Run: `npx tsx bench/scale-out.ts` (BENCH_GATEWAYS default 4, BENCH_CONNECTIONS default 2000,
 * BENCH_COMMANDS per gateway default 50). Writes bench/results/scale-out.json.
 */
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { freePorts } from "../e2e/fixtures/product";
import { benchLocation, cheapPasswordHash, insertBenchStations } from "./bench-stations";
import { startFleet } from "./charger-fleet";
import { inProcessV1, latency, machine, round2, scratchDatabase, writeResult } from "./harness";

const GATEWAYS = Number(process.env.BENCH_GATEWAYS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 2000);
const COMMANDS_PER_GATEWAY = Number(process.env.BENCH_COMMANDS ?? 50);
const CONCURRENCY = 8;
const PASSWORD = "bench-password-000001";

const database = await scratchDatabase("scale-out");
const { db, closeDb } = await import("../server/db");
const { createApiKey } = await import("../server/keys/create-api-key");
const { handleV1 } = await import("../server/http/routes");
const v1 = inProcessV1(handleV1);

type Health = { gateway_id: string; connections: number; memory_rss_bytes: number };

/** One gateway process as `npm start` runs it, on its own port; resolves once /health answers. */
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
  const health = async () =>
    (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as Health;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`gateway on ${port} exited (${child.exitCode})`);
    const up = await health().catch(() => null);
    if (up) return { url: `ws://127.0.0.1:${port}/ocpp`, id: up.gateway_id, health, child, exited };
    if (i > 600) throw new Error(`gateway on ${port} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const loadAtStart = os.loadavg();
const gateways: Awaited<ReturnType<typeof startGateway>>[] = [];
try {
  for (let i = 0; i < GATEWAYS; i++) gateways.push(await startGateway());
  const owner = await db().user.create({ data: { email: "bench@example.com" } });
  const team = await db().team.create({
    data: { name: "Bench", members: { create: { userId: owner.id, role: "owner" } } },
  });
  const tenant = await db().tenant.create({ data: { teamId: team.id, name: "Scale-out" } });
  const { secret: key, id: keyId } = await createApiKey({
    tenantId: tenant.id,
    ownerUserId: owner.id,
    scopes: ["stations:read", "stations:control"],
  });
  await db().apiKey.update({ where: { id: keyId }, data: { rateLimitPerMinute: 100_000 } });
  const location = await benchLocation(db(), tenant.id);
  const prefix = `SCALE-${Date.now().toString(36)}-`;
  const ids = await insertBenchStations(db(), {
    tenants: [location],
    prefix,
    first: 0,
    count: CONNECTIONS,
    passwordHash: cheapPasswordHash(PASSWORD),
  });

  // Chargers spread evenly: charger i connects to gateway floor(i / (CONNECTIONS / GATEWAYS)).
  const fleet = startFleet({
    urls: gateways.map((g) => g.url),
    prefix,
    first: 0,
    count: CONNECTIONS,
    password: PASSWORD,
    ratePerSecond: 100,
    heartbeatMs: 10_000,
  });
  const ready = await fleet.ready;
  fleet.hold();
  // Every connect recorded: the database says which gateway holds each station.
  for (let i = 0; ; i++) {
    const online = await db().station.count({
      where: { tenantId: tenant.id, gatewayId: { not: null } },
    });
    if (online >= ready.connected) break;
    if (i > 300) throw new Error(`only ${online} of ${ready.connected} stations recorded online`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const holders = new Map(
    (
      await db().station.findMany({
        where: { tenantId: tenant.id },
        select: { name: true, gatewayId: true },
      })
    ).map((s) => [s.name, s.gatewayId]),
  );
  const perGateway = await Promise.all(gateways.map((g) => g.health()));

  // Commands: COMMANDS_PER_GATEWAY stations held by each gateway, in turn, CONCURRENCY at once.
  const targets: string[] = [];
  for (const g of gateways) {
    const held = [...holders].filter(([, gw]) => gw === g.id).map(([name]) => name);
    for (let i = 0; i < Math.min(COMMANDS_PER_GATEWAY, held.length); i++)
      targets.push(held[Math.floor((i * held.length) / COMMANDS_PER_GATEWAY)]!);
  }
  targets.sort(() => Math.random() - 0.5);
  const commandMs: number[] = [];
  const outcomes: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < targets.length) {
        const name = targets[next++]!;
        const { json, ms } = await v1(
          key,
          "POST",
          `/v1/tenants/${tenant.id}/stations/${ids.get(name)}/commands`,
          { action: "reset", mode: "soft" },
        );
        outcomes[String(json.status)] = (outcomes[String(json.status)] ?? 0) + 1;
        if (json.status === "succeeded") commandMs.push(ms);
      }
    }),
  );
  const beats = await fleet.stop();

  // Each target's charger received exactly one Reset, through the gateway its station named; no
  // other charger received one.
  const urlOf = new Map(gateways.map((g) => [g.id, g.url]));
  const resets = new Map<string, number>();
  for (const [name, action] of beats.received)
    if (action === "Reset") resets.set(name, (resets.get(name) ?? 0) + 1);
  const wanted = new Set(targets);
  let mismatches = 0;
  for (const name of targets) {
    if (resets.get(name) !== 1) mismatches++;
    else if (urlOf.get(holders.get(name) ?? "") !== beats.byUrl.get(name)) mismatches++;
  }
  for (const name of resets.keys()) if (!wanted.has(name)) mismatches++;

  const stationGateway = new Map(gateways.map((g) => [g.id, 0]));
  for (const name of targets) {
    const gw = holders.get(name)!;
    stationGateway.set(gw, (stationGateway.get(gw) ?? 0) + 1);
  }
  writeResult("scale-out", {
    benchmark: "scale-out",
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    gateways: gateways.map((g, i) => ({
      port: Number(new URL(g.url).port),
      connections: perGateway[i]!.connections,
      rss_mb: round2(perGateway[i]!.memory_rss_bytes / 2 ** 20),
      commands: stationGateway.get(g.id) ?? 0,
    })),
    chargers: {
      attempted: CONNECTIONS,
      connected: ready.connected,
      failed: ready.failed,
      retries: ready.retries,
      simulator_processes: fleet.processes,
      dropped: beats.dropped,
      heartbeats: beats.heartbeats,
      heartbeat_errors: beats.heartbeatErrors,
      heartbeat: latency(beats.latencies),
    },
    commands: {
      sent: targets.length,
      concurrency: CONCURRENCY,
      outcomes,
      round_trip: latency(commandMs),
      resets_received: [...resets.values()].reduce((a, b) => a + b, 0),
      mismatches,
    },
  });
  if (mismatches > 0) process.exitCode = 1;
} finally {
  for (const g of gateways) g.child.kill("SIGTERM");
  await Promise.all(gateways.map((g) => g.exited));
  await closeDb();
  await database.stop();
}
