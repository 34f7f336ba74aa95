import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { waitUntil } from "../testing/ocpp";
import { embeddedUrl } from "../server/db/embedded";
import { processInfo } from "../server/lib/processes";
import { isAlive, processesNaming } from "../testing/processes";
import {
  freePorts,
  loopback,
  newDataDir,
  startProduct,
  stopStartedProducts,
  type Product,
} from "./fixtures/product";

test.afterEach(stopStartedProducts);

/**
 * What operators do to `npm start`, with real processes: `kill -9` of its own process or of the
 * npm that ran it, a start right after, two starts at once on one data folder. No PostgreSQL, web
 * or ocpp process outlives the start that ran it, a new start on the folder comes up with the data,
 * and a second start on a folder in use says why it cannot start.
 */

const ROOT = path.resolve(import.meta.dirname, "..");

/** A tenant's location written through the API: the data a restart must keep. */
async function aLocation(product: Product, who: string) {
  const boot = product.admin([
    "bootstrap",
    "--email",
    `${who}@example.com`,
    "--team",
    who,
    "--project",
    who,
  ]) as { tenant_id: number; api_key: { secret: string } };
  const res = await fetch(`${loopback(product.baseUrl)}/v1/tenants/${boot.tenant_id}/locations`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${boot.api_key.secret}`,
      "content-type": "application/json",
      "idempotency-key": `${who}-location`,
    },
    body: JSON.stringify({
      name: `Kept by ${who}`,
      address: { street: "3 Restart Rd", city: "Denver", country: "US" },
      coordinates: { latitude: 39.74, longitude: -104.99 },
      time_zone: "America/Denver",
    }),
  });
  expect(res.status).toBe(201);
  const location = (await res.json()) as { id: number };
  return {
    location,
    read: async (from: Product) => {
      const again = await fetch(
        `${loopback(from.baseUrl)}/v1/tenants/${boot.tenant_id}/locations/${location.id}`,
        { headers: { authorization: `Bearer ${boot.api_key.secret}` } },
      );
      expect(again.status).toBe(200);
      return (await again.json()) as unknown;
    },
  };
}

/** The pids `npm start` logged: itself, PostgreSQL, web, ocpp. */
function productPids(product: Product) {
  const postgres = product.pid("PostgreSQL");
  const pids = {
    supervisor: product.pid("npm start"),
    postgres,
    watchdog: postgres === undefined ? undefined : processInfo(postgres)?.ppid,
    web: product.pid("web"),
    ocpp: product.pid("ocpp"),
  };
  for (const [name, pid] of Object.entries(pids)) expect(pid, name).toBeGreaterThan(0);
  return pids as Record<keyof typeof pids, number>;
}

async function gatewayId(product: Product) {
  const res = await fetch(`${loopback(product.ocppUrl).replace("ws:", "http:")}/health`);
  return ((await res.json()) as { gateway_id: string }).gateway_id;
}

/** A query on the product's embedded database (its port is in PostgreSQL's postmaster.pid). */
async function query<T>(dataDir: string, sql: string, params: unknown[]): Promise<T[]> {
  const port = fs
    .readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8")
    .split("\n")[3];
  const client = new pg.Client({ connectionString: embeddedUrl(Number(port)) });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** When every one of `pids` is gone (ms after `from`). */
function goneAt(pids: number[], from: number): Promise<number> {
  return (async () => {
    while (pids.some(isAlive)) await new Promise((r) => setTimeout(r, 50));
    return Date.now() - from;
  })();
}

test("kill -9 of npm start's own process: PostgreSQL, web and ocpp go too, and a start on the same folder and ports at once comes up with the data", async () => {
  test.setTimeout(240_000);
  const dataDir = newDataDir();
  const [port, ocppPort] = await freePorts(2);
  const first = await startProduct({ dataDir, port, ocppPort });
  const kept = await aLocation(first, "killed");
  const before = await kept.read(first);
  const pids = productPids(first);
  const killedGateway = await gatewayId(first);
  // Every process of the product runs on the project's own Node.js (package.json engines).
  const projectNode = fs.realpathSync(path.join(ROOT, "node_modules", ".bin", "node"));
  for (const pid of [pids.supervisor, pids.web, pids.ocpp, pids.watchdog])
    expect(fs.realpathSync(`/proc/${pid}/exe`), `pid ${pid}`).toBe(projectNode);

  process.kill(pids.supervisor, "SIGKILL");
  const killedAt = Date.now();
  const allGone = goneAt(Object.values(pids), killedAt);
  // No waiting: the new start finds the old one's PostgreSQL still stopping, and its ports.
  const second = await startProduct({ dataDir, port, ocppPort });
  try {
    // Within the bound: the web and ocpp processes stop within 10 s of losing their supervisor,
    // PostgreSQL (fast shutdown) right after them.
    const gone = await allGone;
    console.log(`after the kill -9 of npm start: everything gone in ${gone} ms`);
    expect(gone).toBeLessThan(30_000);
    expect(second.output()).toContain(
      `the previous npm start on this data folder (pid ${pids.supervisor}) ended without stopping; taking over`,
    );
    expect(await kept.read(second)).toEqual(before);
    // The killed start's gateway still recorded its stop: PostgreSQL waited for it.
    const gateways = await query<{ id: string; stopped_at: Date | null }>(
      dataDir,
      "SELECT id, stopped_at FROM gateways WHERE id = $1",
      [killedGateway],
    );
    expect(gateways).toEqual([{ id: killedGateway, stopped_at: expect.any(Date) }]);
  } finally {
    await second.stop();
  }
  expect(processesNaming(dataDir)).toEqual([]);
});

test("kill -9 of the npm that ran npm start: the product stops in order (gateway first, PostgreSQL last) and the next start has the data", async () => {
  test.setTimeout(240_000);
  const dataDir = newDataDir();
  const first = await startProduct({ dataDir });
  const kept = await aLocation(first, "npmkilled");
  const before = await kept.read(first);
  const pids = productPids(first);
  process.kill(first.npmPid, "SIGKILL");
  const killedAt = Date.now();
  // Every process that held npm's output pipes is gone (the supervisor included).
  await Promise.race([
    first.exited,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`still running:\n${first.output()}`)), 40_000),
    ),
  ]);
  const gone = await goneAt(Object.values(pids), killedAt);
  console.log(`after the kill -9 of npm: everything gone in ${gone} ms`);
  expect(gone).toBeLessThan(30_000);
  expect(processesNaming(dataDir)).toEqual([]);
  const output = first.output();
  expect(output).toContain(
    `the process that ran npm start (pid ${first.npmPid}) is gone; stopping`,
  );
  expect(output).toContain("ocpp gateway stopped");
  expect(output.indexOf("stopping PostgreSQL")).toBeGreaterThan(
    output.indexOf("ocpp gateway stopped"),
  );

  const second = await startProduct({ dataDir });
  try {
    expect(second.output()).not.toContain("ended without stopping");
    expect(await kept.read(second)).toEqual(before);
  } finally {
    await second.stop();
  }
});

test("two npm start on one data folder at once: one runs, the other exits 1 saying which process holds the folder", async () => {
  test.setTimeout(180_000);
  const dataDir = newDataDir();
  const [port, ocppPort] = await freePorts(2);
  const both = [
    await startProduct({ dataDir, port, ocppPort, waitFor: "nothing" }),
    await startProduct({ dataDir, port, ocppPort, waitFor: "nothing" }),
  ];
  try {
    const refused = await Promise.race(both.map((p) => p.exited.then(() => p)));
    const running = both.find((p) => p !== refused)!;
    await running.ready("console");
    expect((await refused.exited).code).toBe(1);
    const holder = running.pid("npm start");
    expect(refused.output()).toContain(
      `start failed: another npm start (pid ${holder}) is running on the data folder ${dataDir}`,
    );
    // The refused one touched nothing: it started no PostgreSQL, web or ocpp process.
    expect(refused.pid("PostgreSQL")).toBeUndefined();
    expect(refused.pid("web")).toBeUndefined();
    const kept = await aLocation(running, "twice");
    expect(await kept.read(running)).toMatchObject({ name: "Kept by twice" });

    // And a start on another folder but the same port is refused before it starts anything.
    const samePort = await startProduct({ port, waitFor: "nothing" });
    expect((await samePort.exited).code).toBe(1);
    expect(samePort.output()).toContain(
      `start failed: port ${port} (PORT) is in use: another npm start or another program listens there.`,
    );
    expect(samePort.pid("PostgreSQL")).toBeUndefined();
    expect(processesNaming(samePort.dataDir)).toEqual([]);
  } finally {
    await Promise.all(both.map((p) => p.stop()));
  }
  expect(processesNaming(dataDir)).toEqual([]);
  await waitUntil(() => !fs.existsSync(path.join(dataDir, "npm-start.lock")));
});
