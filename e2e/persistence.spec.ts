import { execSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import { loopback, newDataDir, startProduct } from "./fixtures/product";

function postgresProcessesFor(dataDir: string): string[] {
  const out = execSync("ps -eo pid,args", { encoding: "utf8" });
  return out.split("\n").filter((line) => line.includes("postgres") && line.includes(dataDir));
}

/** npm itself may exit by the same SIGINT; what matters is that our start script shut down cleanly. */
async function expectCleanStop(product: Awaited<ReturnType<typeof startProduct>>) {
  const { code, signal } = await product.stop();
  expect(code === 0 || signal === "SIGINT").toBe(true);
  expect(product.output()).toContain("ocpp gateway stopping");
  expect(product.output()).not.toMatch(/stopped unexpectedly|start failed/);
}

test("the embedded database keeps its data across a stop and start, and Ctrl-C leaves no PostgreSQL", async () => {
  test.setTimeout(240_000);
  const dataDir = newDataDir();
  const first = await startProduct({ dataDir });
  const boot = first.admin([
    "bootstrap",
    "--email",
    "persist@example.com",
    "--team",
    "Persist",
    "--project",
    "P1",
  ]);
  const created = await fetch(`${loopback(first.baseUrl)}/v1/tenants/${boot.tenant_id}/locations`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${boot.api_key.secret}`,
      "content-type": "application/json",
      "idempotency-key": "persist-location-1",
    },
    body: JSON.stringify({
      name: "Kept",
      address: { street: "2 Stay St", city: "Boston", country: "US" },
      coordinates: { latitude: 42.36, longitude: -71.06 },
      time_zone: "America/New_York",
    }),
  });
  expect(created.status).toBe(201);
  const location = await created.json();
  expect(postgresProcessesFor(dataDir).length).toBeGreaterThan(0);
  await expectCleanStop(first);
  expect(postgresProcessesFor(dataDir)).toEqual([]);

  const second = await startProduct({ dataDir });
  try {
    const read = await fetch(
      `${loopback(second.baseUrl)}/v1/tenants/${boot.tenant_id}/locations/${location.id}`,
      {
        headers: { authorization: `Bearer ${boot.api_key.secret}` },
      },
    );
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(location);
  } finally {
    await expectCleanStop(second);
  }
  expect(postgresProcessesFor(dataDir)).toEqual([]);
});
