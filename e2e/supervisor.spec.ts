import { execSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { aCharger, waitUntil } from "../testing/ocpp";
import { startEmbeddedDatabase } from "../server/db/embedded";
import { loopback, newDataDir, startProduct, type Product } from "./fixtures/product";

/**
 * `npm start` keeps the product up: a child killed with SIGKILL comes back while the other keeps
 * serving, and Ctrl-C stops the children before PostgreSQL, so the gateway's last writes land.
 */

const PASSWORD = "supervisor-charger-password";

/** A tenant with one station that has a password, through the product's own CLI and API. */
async function aStation(product: Product, who: string) {
  const boot = product.admin([
    "bootstrap",
    "--email",
    `${who}@example.com`,
    "--team",
    who,
    "--project",
    who,
  ]) as { tenant_id: number; api_key: { secret: string } };
  const api = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${loopback(product.baseUrl)}/v1/tenants/${boot.tenant_id}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${boot.api_key.secret}`,
        "content-type": "application/json",
        "idempotency-key": `${who}-${method}-${path}`,
      },
      body: JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as { id: number; name: string };
  };
  const location = await api("POST", "/locations", {
    name: "Depot",
    address: { street: "1 Main St", city: "Austin", country: "US" },
    coordinates: { latitude: 30.27, longitude: -97.74 },
    time_zone: "America/Chicago",
  });
  const name = `SUP-${who}-${Date.now()}`;
  const station = await api("POST", "/stations", {
    name,
    location_id: location.id,
    connector_count: 1,
  });
  await api("PUT", `/stations/${station.id}/credentials`, { password: PASSWORD });
  const read = async () =>
    (await (
      await fetch(
        `${loopback(product.baseUrl)}/v1/tenants/${boot.tenant_id}/stations/${station.id}`,
        {
          headers: { authorization: `Bearer ${boot.api_key.secret}` },
        },
      )
    ).json()) as { online: boolean };
  return { id: station.id, name, read };
}

async function bootedCharger(product: Product, name: string) {
  const charger = aCharger({
    url: `${loopback(product.ocppUrl)}/ocpp`,
    identity: name,
    password: PASSWORD,
    protocol: "ocpp2.0.1",
  });
  await charger.connect();
  const boot = (await charger.call("BootNotification", {
    reason: "PowerUp",
    chargingStation: { vendorName: "E2E", model: "Sim" },
  })) as { status: string };
  expect(boot.status).toBe("Accepted");
  return charger;
}

/** The pid `npm start` logged for the child's current process. */
function childPid(product: Product, name: "web" | "ocpp"): number {
  const pids = [
    ...product.output().matchAll(new RegExp(`^${name} started \\(pid (\\d+)\\)$`, "gm")),
  ];
  expect(pids.length, `a "${name} started (pid …)" line`).toBeGreaterThan(0);
  return Number(pids.at(-1)![1]);
}

/** Polls a URL every 100 ms until stopped; collects every answer that was not a 200. */
function watch(url: string) {
  const failures: string[] = [];
  let polls = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        if (res.status !== 200) failures.push(`status ${res.status}`);
        await res.body?.cancel();
      } catch (error) {
        failures.push(String(error));
      }
      polls += 1;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { failures, polls };
    },
  };
}

/** The promise's value, or a failure naming what did not happen within `ms`. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function ocppHealth(product: Product) {
  const res = await fetch(`${loopback(product.ocppUrl).replace("ws:", "http:")}/health`);
  return (await res.json()) as { gateway_id: string; connections: number };
}

/** What a shutdown that pulled the database from under the gateway prints (code 57P01 and kin). */
const SHUTDOWN_ERRORS =
  /57P01|terminating connection|unhandled rejection|recording .* failed|stop failed|did not stop|stopping PostgreSQL failed/i;

test("a killed ocpp or web process is started again while the other keeps serving", async () => {
  test.setTimeout(240_000);
  const product = await startProduct();
  try {
    const station = await aStation(product, "restart");
    let charger = await bootedCharger(product, station.name);
    const firstGateway = (await ocppHealth(product)).gateway_id;

    // kill -9 the gateway: the web keeps answering, the gateway comes back, the charger reboots.
    const ocppPid = childPid(product, "ocpp");
    const web = watch(`${loopback(product.baseUrl)}/v1/health`);
    const chargerClosed = new Promise((resolve) => charger.once("close", resolve));
    process.kill(ocppPid, "SIGKILL");
    await within(15_000, chargerClosed, "the killed gateway's socket closed");
    await waitUntil(async () => {
      try {
        return (await ocppHealth(product)).gateway_id !== firstGateway;
      } catch {
        return false;
      }
    }, 30_000);
    expect(product.output()).toMatch(
      new RegExp(
        `^ocpp \\(pid ${ocppPid}\\) stopped unexpectedly \\(killed by SIGKILL\\) after [\\d.]+ s; restarting in 1 s \\(restart 1\\)$`,
        "m",
      ),
    );
    expect(childPid(product, "ocpp")).not.toBe(ocppPid);
    charger = await bootedCharger(product, station.name);
    expect((await station.read()).online).toBe(true);
    const webDuring = await web.stop();
    expect(webDuring.polls).toBeGreaterThan(5);
    expect(webDuring.failures).toEqual([]);

    // kill -9 the web: the gateway and the charger's socket stay up, the web comes back.
    const gateway = (await ocppHealth(product)).gateway_id;
    const webPid = childPid(product, "web");
    const ocpp = watch(`${loopback(product.ocppUrl).replace("ws:", "http:")}/health`);
    let chargerDropped = false;
    charger.once("close", () => (chargerDropped = true));
    process.kill(webPid, "SIGKILL");
    await waitUntil(() => product.output().includes(`web (pid ${webPid}) stopped unexpectedly`));
    await charger.call("Heartbeat", {}); // while the web is down
    await waitUntil(async () => {
      try {
        return (await fetch(`${loopback(product.baseUrl)}/v1/health`)).status === 200;
      } catch {
        return false;
      }
    }, 60_000);
    expect(childPid(product, "web")).not.toBe(webPid);
    const ocppDuring = await ocpp.stop();
    expect(ocppDuring.polls).toBeGreaterThan(5);
    expect(ocppDuring.failures).toEqual([]);
    expect((await ocppHealth(product)).gateway_id).toBe(gateway);
    expect(chargerDropped).toBe(false);
    await charger.call("Heartbeat", {});
    expect((await station.read()).online).toBe(true);
    await charger.close({ force: true });
  } finally {
    await product.stop();
  }
  expect(product.output()).not.toMatch(/stopping everything|start failed/);
});

test("Ctrl-C stops the gateway before PostgreSQL: the station's disconnect and the gateway's stop are recorded", async () => {
  test.setTimeout(180_000);
  const dataDir = newDataDir();
  const product = await startProduct({ dataDir });
  let gatewayId: string;
  let stationId: number;
  try {
    const station = await aStation(product, "ctrlc");
    stationId = station.id;
    await bootedCharger(product, station.name);
    gatewayId = (await ocppHealth(product)).gateway_id;
    expect((await station.read()).online).toBe(true);
  } catch (error) {
    await product.stop();
    throw error;
  }
  const { code, signal } = await product.stop();
  expect(code === 0 || signal === "SIGINT").toBe(true);
  const output = product.output();
  expect(output).toContain("ocpp gateway stopped");
  expect(output).not.toMatch(SHUTDOWN_ERRORS);
  // The children stop first, PostgreSQL last.
  expect(output.indexOf("stopping PostgreSQL")).toBeGreaterThan(
    output.indexOf("ocpp gateway stopped"),
  );

  const database = await startEmbeddedDatabase({ dataDir });
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const station = await client.query<{ gateway_id: string | null }>(
      "SELECT gateway_id FROM stations WHERE id = $1",
      [stationId],
    );
    expect(station.rows).toEqual([{ gateway_id: null }]);
    const events = await client.query<{ type: string }>(
      "SELECT type FROM events WHERE station_id = $1 ORDER BY sequence",
      [stationId],
    );
    expect(events.rows.map((row) => row.type).at(-1)).toBe("station.disconnected");
    const gateway = await client.query<{ stopped_at: Date | null }>(
      "SELECT stopped_at FROM gateways WHERE id = $1",
      [gatewayId],
    );
    expect(gateway.rows[0]?.stopped_at).toBeInstanceOf(Date);
  } finally {
    await client.end();
    await database.stop();
  }
});

test("when the embedded PostgreSQL dies, npm start says so, stops both processes and exits 1", async () => {
  test.setTimeout(120_000);
  const product = await startProduct();
  const postgres = /^PostgreSQL started \(pid (\d+)\)$/m.exec(product.output());
  expect(postgres, 'a "PostgreSQL started (pid …)" line').not.toBeNull();
  process.kill(Number(postgres![1]), "SIGKILL");
  const { code } = await within(30_000, product.exited, "npm start exited by itself");
  expect(code).toBe(1);
  expect(product.output()).toMatch(
    /^PostgreSQL stopped unexpectedly \(killed by SIGKILL\); stopping everything$/m,
  );
  expect(product.output()).not.toMatch(/restarting in/);
  // Nothing of this product is left: no PostgreSQL process on its data, no web, no gateway.
  const processes = execSync("ps -eo args", { encoding: "utf8" }).split("\n");
  expect(processes.filter((line) => line.includes(product.dataDir))).toEqual([]);
  await expect(fetch(`${loopback(product.baseUrl)}/v1/health`)).rejects.toThrow();
  await expect(ocppHealth(product)).rejects.toThrow();
});
