import { expect, test, type Page } from "@playwright/test";
import { aCharger, waitUntil } from "../testing/ocpp";
import { anEmail, PASSWORD, shot } from "./fixtures/people";
import { startProduct, type Product } from "./fixtures/product";
import { readmeShellBlocks, Terminal } from "./fixtures/readme";

/**
 * README.md's command blocks, run verbatim as a new user runs them: in one bash, in order, against
 * the product `npm start` runs with its default address (PUBLIC_BASE_URL unset: localhost), and
 * the README's browser steps done in Chromium. The product holds another project's data first,
 * so an example that assumed its IDs (tenant 1, location 1) instead of the ones it was given
 * fails here.
 */
test.describe.configure({ mode: "serial" });

let product: Product;
let terminal: Terminal;
let page: Page;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(600_000);
  product = await startProduct({ defaultAddress: true, extraEnv: { SERVICE_ENV: "development" } });
  const other = product.admin(
    ["bootstrap", "--email", "other@example.com", "--team", "Other"].concat([
      "--project",
      "Someone else's",
    ]),
  );
  const headers = {
    authorization: `Bearer ${other.api_key.secret}`,
    "content-type": "application/json",
  };
  const t = `${product.baseUrl}/v1/tenants/${other.tenant_id}`;
  const location = await fetch(`${t}/locations`, {
    method: "POST",
    headers: { ...headers, "idempotency-key": "other-location" },
    body: JSON.stringify({
      name: "Elsewhere",
      address: { street: "9 Side St", city: "Reno", country: "US" },
      coordinates: { latitude: 39.5, longitude: -119.8 },
      time_zone: "America/Los_Angeles",
    }),
  }).then((r) => r.json() as Promise<{ id: number }>);
  const station = await fetch(`${t}/stations`, {
    method: "POST",
    headers: { ...headers, "idempotency-key": "other-station" },
    body: JSON.stringify({ name: "OTHER-1", location_id: location.id, connector_count: 2 }),
  });
  expect(station.status).toBe(201);
  const tariff = await fetch(`${t}/tariffs`, {
    method: "POST",
    headers,
    body: JSON.stringify({ rate_minor_per_kwh: 99 }),
  });
  expect(tariff.status).toBe(201);
  // The user's terminal: the same configuration as their `npm start`, nothing else.
  terminal = new Terminal({
    PORT: product.env.PORT!,
    OCPP_PORT: product.env.OCPP_PORT!,
    DATA_DIR: product.env.DATA_DIR!,
  });
  page = await (await browser.newContext()).newPage();
});

test.afterAll(async () => {
  terminal?.close();
  await product?.stop();
});

/** Runs a README block and expects it to finish well, printing no error answer. */
const run = (block: string | undefined, timeoutMs?: number) => terminal.runWell(block, timeoutMs);

const blocks: Record<string, string[]> = {};
const blocksOf = (heading: string) => (blocks[heading] ??= readmeShellBlocks(heading));

let ids: { tenant: number; stationId: number; connectorId: number };

test("A first API call: bootstrap prints exactly one JSON object, the station goes to the new location", async () => {
  const [bootstrap, calls, ...more] = blocksOf("## A first API call");
  expect(more).toEqual([]);
  const boot = await run(bootstrap);
  // `npm run -s`: stdout is the one object and nothing else (no npm banner).
  expect(boot.text).toEqual([]);
  expect(boot.json).toHaveLength(1);
  const [out] = boot.json;
  expect(out).toMatchObject({
    tenant_id: expect.any(Number),
    api_key: { secret: expect.stringMatching(/^cpk_live_/) },
  });
  expect(out.tenant_id).not.toBe(1);

  const first = await run(calls);
  const [access, location, station] = first.json;
  expect(access).toMatchObject({
    principal: { type: "api_key" },
    tenants: [{ id: out.tenant_id }],
  });
  expect(location).toMatchObject({ tenant_id: out.tenant_id, name: "Depot" });
  expect(location.id).not.toBe(1);
  expect(station).toMatchObject({
    tenant_id: out.tenant_id,
    location_id: location.id,
    name: "CP-0001",
    connection_url: `ws://localhost:${product.env.OCPP_PORT}/ocpp/CP-0001`,
  });
  ids = {
    tenant: out.tenant_id,
    stationId: station.id,
    connectorId: station.connectors[0].id,
  };
  expect(await terminal.variable("CONNECTOR_ID")).toBe(String(ids.connectorId));
});

test("Tokens for scripts: the device flow gives the script the person's token, and /v1/me answers as them", async () => {
  test.setTimeout(120_000);
  const [ask, poll, ...more] = blocksOf("## Tokens for scripts");
  expect(more).toEqual([]);
  const asked = await run(ask);
  const [device] = asked.json;
  expect(device).toMatchObject({
    verification_uri: `${product.baseUrl}/oidc/device`,
    expires_in: 600,
    interval: 5,
  });
  expect(asked.text).toEqual([
    `Open ${device.verification_uri_complete} and check the code ${device.user_code}`,
  ]);

  // The code page, where a person types the code (verification_uri).
  await page.goto(device.verification_uri);
  await page.waitForURL(/\/device\?step=code/);
  await expect(page.getByLabel("Code shown in your terminal")).toBeVisible();
  await shot(page, "device-code");
  // The person, in a browser: the code page shows the code, then they sign up and are done.
  await page.goto(device.verification_uri_complete);
  await page.waitForURL(/\/device\?step=confirm/);
  await expect(page.getByTestId("user-code")).toHaveText(device.user_code);
  await shot(page, "device-confirm");
  await page.getByRole("button", { name: "Continue and sign in" }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByRole("link", { name: "Create an account" }).click();
  const email = anEmail("script");
  await page.getByLabel("Name").fill("Scripting Sam");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/device\?step=done/);
  await expect(page.getByRole("heading", { name: "Your device is signed in" })).toBeVisible();
  await shot(page, "device-done");

  const polled = await run(poll, 60_000);
  expect(polled.json).toEqual([
    {
      kind: "user",
      user: { id: expect.any(Number), email, name: "Scripting Sam", platform_role: null },
      api_key: null,
      workspace: null,
      scopes: [],
      teams: [],
      pending_invites: 0,
    },
  ]);
});

test("Bills: a simulated bill from start to final amount on the project's own station and tariff", async () => {
  const [bill, ...more] = blocksOf("### Bills");
  expect(more).toEqual([]);
  const out = await run(bill);
  const [tariff, open, final] = out.json;
  expect(tariff).toMatchObject({ tenant_id: ids.tenant, rate_minor_per_kwh: 35 });
  expect(open).toMatchObject({
    status: "open",
    station_id: ids.stationId,
    connector_id: ids.connectorId,
    tariff_id: tariff.id,
  });
  expect(final).toMatchObject({ id: open.id, status: "final", total_minor: 432 });
});

test("Taking payments: the hold is taken before the bill is final, and the simulator returns to this server", async () => {
  const [pay, settle, ...more] = blocksOf("### Taking payments");
  expect(more).toEqual([]);
  const paid = await run(pay);
  const [payment] = paid.json;
  expect(payment).toMatchObject({ status: "pending", amount_minor: 5000, return_url: null });
  // A new bill, still open: not the one the bills example finalized.
  const bill = await fetch(`${product.baseUrl}/v1/tenants/${ids.tenant}/bills/${payment.bill_id}`, {
    headers: { authorization: `Bearer ${await terminal.variable("KEY")}` },
  }).then((r) => r.json() as Promise<{ status: string }>);
  expect(bill.status).toBe("open");
  expect(paid.text).toEqual([`Open ${payment.next_action.url} and press Approve`]);

  await page.goto(payment.next_action.url);
  await page.getByRole("button", { name: /^Approve/ }).click();
  // Back on this machine, at the product's own page.
  await page.waitForURL((url) =>
    url.href.startsWith(`${product.baseUrl}/pay/return?payment=${payment.id}`),
  );
  await expect(page.getByRole("heading", { name: "Thank you" })).toBeVisible();

  const out = await run(settle);
  const [read, final, captured, refunded] = out.json;
  expect(read).toMatchObject({ id: payment.id, status: "authorized" });
  expect(final).toMatchObject({
    id: payment.bill_id,
    status: "final",
    total_minor: 432,
    payment: { id: payment.id, status: "authorized" },
  });
  expect(captured).toMatchObject({ status: "captured", captured_minor: 432 });
  expect(refunded).toMatchObject({ status: "refunded", refunded_minor: 432 });
});

test("Externally funded charging sessions: with a charger, and simulated, each step as curl", async () => {
  test.setTimeout(120_000);
  const [create, stop, finalize, simulated, ...more] = blocksOf(
    "### Externally funded charging sessions",
  );
  expect(more).toEqual([]);
  const key = await terminal.variable("KEY");
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${product.baseUrl}/v1/tenants/${ids.tenant}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        ...(init.headers as Record<string, string>),
      },
    });
  // The charger at CP-0001 (README "Connecting a charger"): a strict OCPP 1.6 client that starts
  // and stops its transaction when told to, 12 kWh in between.
  const password = "readme-charger-password";
  const set = await api(`/stations/${ids.stationId}/credentials`, {
    method: "PUT",
    headers: { "idempotency-key": "readme-charger-password" },
    body: JSON.stringify({ password }),
  });
  expect(set.status).toBe(202);
  const charger = aCharger({
    url: `ws://localhost:${product.env.OCPP_PORT}/ocpp`,
    identity: "CP-0001",
    password,
    protocol: "ocpp1.6",
  });
  const later = (what: () => Promise<unknown>) =>
    void setTimeout(() => void what().catch((e: unknown) => console.error(e)), 300);
  charger.handle("RemoteStartTransaction", ({ params }) => {
    const { connectorId, idTag } = params as { connectorId: number; idTag: string };
    later(() =>
      charger.call("StartTransaction", {
        connectorId,
        idTag,
        meterStart: 0,
        timestamp: new Date().toISOString(),
      }),
    );
    return Promise.resolve({ status: "Accepted" });
  });
  charger.handle("RemoteStopTransaction", ({ params }) => {
    const { transactionId } = params as { transactionId: number };
    later(() =>
      charger.call("StopTransaction", {
        transactionId,
        meterStop: 12_000,
        timestamp: new Date().toISOString(),
        reason: "Remote",
      }),
    );
    return Promise.resolve({ status: "Accepted" });
  });
  await charger.connect();
  try {
    await charger.call("BootNotification", {
      chargePointVendor: "Readme",
      chargePointModel: "Sim",
    });
    await charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Available",
    });
    const sessionStatus = async () => {
      const id = await terminal.variable("SESSION_ID");
      return ((await (await api(`/charging-sessions/${id}`)).json()) as { status: string }).status;
    };

    const created = await run(create);
    const [session, start] = created.json;
    expect(session).toMatchObject({ status: "created", source: "csms", station_id: ids.stationId });
    expect(start).toMatchObject({ scope: "external.start", status: "succeeded" });
    await waitUntil(async () => (await sessionStatus()) === "charging", 15_000);

    const stopped = await run(stop);
    expect(stopped.json[0]).toMatchObject({ id: session.id, status: "charging" });
    expect(stopped.json[1]).toMatchObject({ scope: "external.stop", status: "succeeded" });
    await waitUntil(async () => (await sessionStatus()) === "awaiting_bill", 15_000);

    const finalized = await run(finalize);
    const [ended, final, report] = finalized.json;
    expect(ended).toMatchObject({ status: "awaiting_bill", usage: { energy_wh: 12_000 } });
    // 12 kWh at $0.35
    expect(final).toMatchObject({ status: "final", total_minor: 420, uncollected_minor: 420 });
    expect(report).toMatchObject({
      duplicate: false,
      report: { kind: "capture", outcome: "succeeded", amount_minor: 420 },
      session: { captured_minor: 420, uncollected_minor: 0 },
    });
  } finally {
    await charger.close({ force: true });
  }

  const sim = await run(simulated);
  const [final, pending, succeeded] = sim.json;
  expect(final).toMatchObject({ source: "simulated", status: "final", total_minor: 350 });
  expect(pending).toMatchObject({ duplicate: false, report: { outcome: "pending" } });
  expect(succeeded).toMatchObject({
    duplicate: false,
    report: { outcome: "succeeded" },
    session: { captured_minor: 350, uncollected_minor: 0, net_minor: 350 },
  });
});
