import { expect, test } from "@playwright/test";
import { anEmail, PASSWORD } from "./fixtures/people";
import { startProduct, type Product } from "./fixtures/product";
import { readmeShellBlocks, Terminal } from "./fixtures/readme";

/**
 * README.md's "Try it without hardware", run verbatim as a new user runs it (as readme.spec.ts
 * runs the other sections): in one fresh bash, in order, against the product `npm start` runs
 * with its default address, the browser step of the device flow done in Chromium. Ends with a
 * refunded sandbox session whose bill the pricing engine priced.
 */
let product: Product;
let terminal: Terminal;

test.beforeAll(async () => {
  test.setTimeout(600_000);
  product = await startProduct({ defaultAddress: true, extraEnv: { SERVICE_ENV: "development" } });
  // Another workspace's sandbox first, so an example that assumed the first IDs fails here.
  product.admin(["bootstrap", "--email", "other@example.com", "--team", "Other", "--project", "P"]);
  terminal = new Terminal({
    PORT: product.env.PORT!,
    OCPP_PORT: product.env.OCPP_PORT!,
    DATA_DIR: product.env.DATA_DIR!,
  });
});

test.afterAll(async () => {
  terminal?.close();
  await product?.stop();
});

/** Runs a README block and expects it to finish well, printing no error answer. */
const run = (block: string | undefined, timeoutMs?: number) => terminal.runWell(block, timeoutMs);

test("Try it without hardware: from a person's token to a refunded sandbox session, with curl", async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const [ask, key, flow, ...more] = readmeShellBlocks("## Try it without hardware");
  expect(more).toEqual([]);

  const asked = await run(ask);
  expect(asked.json).toEqual([]);
  const device = JSON.parse(await terminal.variable("DEVICE")) as {
    verification_uri: string;
    verification_uri_complete: string;
    user_code: string;
  };
  expect(device).toMatchObject({ verification_uri: `${product.baseUrl}/oidc/device` });
  expect(asked.text).toEqual([
    `Open ${device.verification_uri_complete} and check the code ${device.user_code}`,
  ]);

  // The person, in a browser: the code page, then a new account.
  const page = await (await browser.newContext()).newPage();
  await page.goto(device.verification_uri_complete);
  await page.waitForURL(/\/device\?step=confirm/);
  await expect(page.getByTestId("user-code")).toHaveText(device.user_code);
  await page.getByRole("button", { name: "Continue and sign in" }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByRole("link", { name: "Create an account" }).click();
  const email = anEmail("sandbox");
  await page.getByLabel("Name").fill("Sandy Developer");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/device\?step=done/);

  // From here on the terminal alone: it must take under a minute.
  const began = Date.now();
  const keyed = await run(key, 60_000);
  const [workspace, me] = keyed.json;
  expect(workspace).toMatchObject({ name: "My workspace", role: "owner", created: true });
  expect(me).toMatchObject({
    kind: "api_key",
    api_key: { kind: "workspace", team_id: workspace.id },
    workspace: { team_id: workspace.id, sandbox_tenant_id: expect.any(Number) },
    scopes: ["sandbox:read", "sandbox:write"],
  });
  expect(await terminal.variable("KEY")).toMatch(/^cpk_live_/);

  const out = await run(flow, 120_000);
  const [charging, advanced, stopAnswer, settled, refundAnswer, refunded, events] = out.json;
  const sessionId = await terminal.variable("SESSION_ID");
  expect(sessionId).toMatch(/^sbs_/);
  expect(charging).toMatchObject({
    id: sessionId,
    status: "charging",
    tenant_id: me.workspace.sandbox_tenant_id,
    team_id: workspace.id,
    station: { name: `sbx-${workspace.id}-ac1`, protocol: "ocpp2.0.1", online: true },
    payment: { service: "simulator", status: "authorized" },
  });
  expect(advanced).toMatchObject({
    id: sessionId,
    status: "charging",
    energy_wh: 10_000,
    energy_kwh: "10.000",
    pending_wh: 0,
    power_kw: "21.991",
  });
  expect(advanced.cost.running_minor).toBeGreaterThan(350); // 10 kWh at $0.35, plus time
  expect(stopAnswer).toMatchObject({ id: sessionId });
  expect(["stopping", "settled"]).toContain(stopAnswer.status);
  expect(settled).toMatchObject({
    status: "settled",
    bill: { status: "final", cost_breakdown: expect.any(Object) },
    payment: { status: "captured" },
  });
  // The bill the engine priced: what the session ran up, captured in full.
  expect(settled.bill.total_minor).toBe(advanced.cost.running_minor);
  expect(settled.payment.captured_minor).toBe(settled.bill.total_minor);
  expect(refundAnswer).toMatchObject({ id: sessionId });
  expect(refunded).toMatchObject({
    id: sessionId,
    status: "refunded",
    bill: { status: "final", total_minor: settled.bill.total_minor },
    payment: { status: "refunded", refunded_minor: settled.bill.total_minor },
  });
  expect(
    events.data.map((e: { type: string; data: { status: string } }) => [e.type, e.data.status]),
  ).toEqual(
    ["starting", "charging", "stopping", "settled", "refunded"].map((status) => [
      "sandbox_session.status_changed",
      status,
    ]),
  );
  const took = Date.now() - began;
  console.log(`Try it without hardware: the curl blocks took ${took} ms`);
  expect(took).toBeLessThan(60_000);

  // The README's example answers are this run's figures.
  const readme = readmeShellBlocks("## Try it without hardware").join("\n");
  expect(readme).toContain(`"running_minor":${advanced.cost.running_minor}`);
  expect(readme).toContain(`"total_minor":${settled.bill.total_minor}`);
});
