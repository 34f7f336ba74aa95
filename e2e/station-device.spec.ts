import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import type { RPCClient } from "ocpp-rpc";
import { aCharger } from "../testing/ocpp";
import { aStation, anOwner } from "./fixtures/owner";
import { base, fitsTheScreen, shotWhenLoaded } from "./fixtures/people";
import { loopback } from "./fixtures/product";

/**
 * Issue 28, points 5 and 6, in the console: the station's "Firmware & diagnostics" tab, the
 * diagnostics download and the batch pages, against real strict ocpp-rpc OCPP 1.6 chargers. An
 * update is scheduled only once confirmed and followed through the charger's notifications to
 * Installed; diagnostics uploaded by the charger to the URL it was given download from the console
 * byte for byte; a batch started from the console for the stations of one location shows its
 * progress to done and is listed among the batches so far. Every check of what was sent is made
 * on the frames the chargers received.
 */

type Frame = { method: string; params: Record<string, any> };
type V1 = Awaited<ReturnType<typeof anOwner>>["v1"];
type Connected = { name: string; charger: RPCClient; received: Frame[] };

let owner: BrowserContext;
let page: Page;
let v1: V1;
let tenant: string;
let tab: string;
let single: Connected;
const batchChargers: Connected[] = [];
const dialog = (p: Page) => p.getByRole("dialog");
const sent = (c: Connected, method: string) =>
  c.received.filter((f) => f.method === method).map((f) => f.params);
const FIRMWARE = "https://firmware.example.com/e2e/fw-2.4.1.bin";
const BATCH_FIRMWARE = "https://firmware.example.com/e2e/fw-2.5.0.bin";

/** A `datetime-local` value `minutes` from now in this machine's zone (the browser's too). */
function localInput(minutes: number) {
  const d = new Date(Date.now() + minutes * 60_000);
  d.setSeconds(0, 0);
  const local = new Date(d.getTime() - d.getTimezoneOffset() * 60_000);
  return { input: local.toISOString().slice(0, 16), iso: d.toISOString() };
}

/** A strict OCPP 1.6 charger for the station, booted; `prepare` adds its handlers first. */
async function connect(
  stationId: number,
  password: string,
  prepare: (c: Connected) => void,
): Promise<Connected> {
  await v1("PUT", `/stations/${stationId}/credentials`, { password });
  const read = (await v1("GET", `/stations/${stationId}`)) as unknown as {
    name: string;
    connection_url: string;
  };
  const charger = aCharger({
    url: loopback(read.connection_url.replace(`/${read.name}`, "")),
    identity: read.name,
    password,
    protocol: "ocpp1.6",
  });
  const c: Connected = { name: read.name, charger, received: [] };
  prepare(c);
  charger.handle(({ method = "?", params = {} }) => {
    c.received.push({ method, params });
    return Promise.reject(new Error(`unexpected ${method}`));
  });
  await charger.connect();
  await charger.call("BootNotification", { chargePointVendor: "E2E", chargePointModel: "Fw" });
  return c;
}

const answer = (
  c: Connected,
  method: string,
  reply: (params: any) => Record<string, unknown>,
  then?: () => void,
) =>
  c.charger.handle(method, ({ params = {} }) => {
    c.received.push({ method, params });
    if (then) setTimeout(then, 300);
    return Promise.resolve(reply(params));
  });

/** 1.6 FirmwareStatusNotification, one after the other. */
async function firmwareStatuses(c: Connected, statuses: string[]) {
  for (const status of statuses) await c.charger.call("FirmwareStatusNotification", { status });
}

test.describe.serial("a station's firmware and diagnostics in the console", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(120_000);
    owner = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    page = await owner.newPage();
    const signedUp = await anOwner(page, "Fern Firmware", "firmware");
    v1 = signedUp.v1;
    tenant = `/console/t/${signedUp.tenantId}`;
    const station = await aStation(v1, "E2E-I28E-FW");
    tab = `${tenant}/stations/${station.id}/device`;
    single = await connect(station.id, "e2e-i28e-device-password", (c) => {
      answer(c, "UpdateFirmware", () => ({}));
      answer(c, "GetDiagnostics", () => ({ fileName: "diag-e2e.log" }));
    });

    // Two more stations at another location, for the batch; they go through every status alone.
    const carPark = await v1("POST", "/locations", {
      name: "Car park",
      address: { street: "2 Side St", city: "Springfield", postal_code: "12345", country: "US" },
      coordinates: { latitude: 40.7, longitude: -74.0 },
      time_zone: "America/New_York",
    });
    for (const n of [1, 2]) {
      const made = (await v1("POST", "/stations", {
        name: `E2E-I28E-PARK${n}-${Date.now().toString(36)}`,
        location_id: carPark.id,
        connector_count: 1,
      })) as { id: number };
      batchChargers.push(
        await connect(made.id, `e2e-i28e-park-password-${n}`, (c) =>
          answer(
            c,
            "UpdateFirmware",
            () => ({}),
            () =>
              void firmwareStatuses(c, ["Downloading", "Downloaded", "Installing", "Installed"]),
          ),
        ),
      );
    }
  });

  test.afterAll(async () => {
    for (const c of [single, ...batchChargers]) await c?.charger.close({ force: true });
    await owner?.close();
  });

  test("an update is sent once confirmed and followed to Installed", async () => {
    await page.goto(`${base()}${tab}`);
    await expect(page.getByTestId("station-connection")).toHaveText("online");
    await expect(page.getByTestId("station-tab-device")).toHaveAttribute("aria-current", "page");
    await expect(page.getByText("No firmware update yet")).toBeVisible();
    const schedule = page.getByRole("button", { name: "Schedule update…" });
    await expect(schedule).toBeDisabled();

    const at = localInput(30);
    await page.getByLabel("Firmware URL (https)").fill(FIRMWARE);
    await page.getByLabel("Retrieve at").fill(at.input);
    await page.getByLabel("Retries").fill("2");
    await schedule.click();
    await expect(dialog(page)).toContainText(single.name);
    await expect(dialog(page)).toContainText(FIRMWARE);
    await expect(dialog(page)).toContainText("cannot be called back");
    await shotWhenLoaded(page, "i28e-firmware-confirm");
    await dialog(page).getByRole("button", { name: "Cancel" }).click();
    await page.waitForTimeout(1_000);
    expect(sent(single, "UpdateFirmware")).toEqual([]);

    await schedule.click();
    await dialog(page).getByRole("button", { name: "Schedule update" }).click();
    await expect(dialog(page)).toBeHidden();
    const row = page.getByTestId("firmware-row");
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(FIRMWARE);
    await expect(row.getByTestId("job-history")).toContainText("Accepted");
    expect(sent(single, "UpdateFirmware")).toEqual([
      { location: FIRMWARE, retrieveDate: at.iso, retries: 2 },
    ]);

    // The charger reports its progress; the tab follows it live (refreshed every 2 s).
    await firmwareStatuses(single, ["Downloading", "Downloaded"]);
    await expect(row.getByTestId("job-history").getByRole("listitem")).toHaveCount(3);
    await expect(row).toContainText("in_progress");
    await firmwareStatuses(single, ["Installing", "Installed"]);
    const history = row.getByTestId("job-history").getByRole("listitem");
    await expect(history).toHaveCount(5);
    const words = (await history.allTextContents()).map((t) => t.split(" ")[0]);
    expect(words).toEqual(["Accepted", "Downloading", "Downloaded", "Installing", "Installed"]);
    await expect(row).toContainText("installed");

    // And on a fresh load.
    await page.reload();
    await expect(page.getByTestId("firmware-row").getByRole("listitem")).toHaveCount(5);
    await expect(page.getByTestId("firmware-row")).toContainText("installed");
  });

  test("diagnostics the charger uploads download from the console byte for byte", async () => {
    const bytes = Buffer.concat([
      Buffer.from("2026-11-26T10:00:00Z E2E diagnostics\n"),
      Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80]),
      Buffer.from("\nend of log\n"),
    ]);
    await page.goto(`${base()}${tab}`);
    await expect(page.getByText("No diagnostics asked yet")).toBeVisible();
    await page.getByRole("button", { name: "Ask for diagnostics" }).click();
    await expect.poll(() => sent(single, "GetDiagnostics").length).toBe(1);
    const [asked] = sent(single, "GetDiagnostics");
    expect(Object.keys(asked!)).toEqual(["location"]);
    expect(asked!.location).toMatch(/^http:\/\/app\.chargecloud\.test:\d+\/uploads\/\w{32}$/);
    const row = page.getByTestId("diagnostics-row");
    await expect(row.getByTestId("job-history")).toContainText("Accepted");

    await single.charger.call("DiagnosticsStatusNotification", { status: "Uploading" });
    const put = await fetch(loopback(asked!.location as string), { method: "PUT", body: bytes });
    expect(put.status).toBeLessThan(300);
    await single.charger.call("DiagnosticsStatusNotification", { status: "Uploaded" });

    const link = row.getByTestId("diagnostics-download");
    await expect(link).toHaveText(`diag-e2e.log (${bytes.length} bytes)`);
    await expect(row).toContainText("uploaded");
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe("diag-e2e.log");
    expect(fs.readFileSync(await download.path()).equals(bytes)).toBe(true);
  });

  test("at 390 px the tab fits and passes axe", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base()}${tab}`);
    await expect(page.getByTestId("diagnostics-download")).toBeVisible();
    await atPhoneWidth(page, "i28e-device-390");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test("a batch over a location's two chargers is started from the console and shows progress to done", async () => {
    await page.goto(`${base()}${tenant}/stations`);
    await page.getByRole("link", { name: "Firmware & diagnostics for many…" }).click();
    await expect(page.locator("main h1")).toHaveText("Firmware & diagnostics for many stations");
    const start = page.getByRole("button", { name: "Update firmware…" });
    await expect(start).toBeDisabled();
    await page.getByLabel("Location").selectOption({ label: "Car park" });
    const names = batchChargers.map((c) => c.name).sort();
    await expect(page.getByTestId("batch-station")).toHaveText(names);
    await page.getByLabel("Firmware update").check();
    await page.getByLabel("Firmware URL (https)").fill(BATCH_FIRMWARE);
    await start.click();
    await expect(dialog(page)).toContainText("Update firmware on 2 stations?");
    for (const name of names) await expect(dialog(page)).toContainText(name);
    await dialog(page).getByRole("button", { name: "Cancel" }).click();
    await page.waitForTimeout(1_000);
    for (const c of batchChargers) expect(sent(c, "UpdateFirmware")).toEqual([]);

    await start.click();
    await dialog(page).getByRole("button", { name: "Update firmware" }).click();
    await page.waitForURL(/\/device-batches\/djb_\w+$/);
    await expect(page.locator("main h1")).toHaveText("Firmware update batch");
    await expect(page.getByTestId("batch-done")).toHaveText("2 of 2 done", { timeout: 20_000 });
    await expect(page.getByTestId("batch-installed")).toContainText("2");
    const jobs = page.getByTestId("batch-job");
    await expect(jobs).toHaveCount(2);
    for (const [i, c] of batchChargers.entries()) {
      const job = jobs.nth(i);
      await expect(job.getByRole("link", { name: c.name })).toBeVisible();
      await expect(job).toContainText("Installed");
      expect(sent(c, "UpdateFirmware")).toEqual([
        { location: BATCH_FIRMWARE, retrieveDate: expect.any(String), retries: 3 },
      ]);
    }
    // The other location's station got nothing more than its own update.
    expect(sent(single, "UpdateFirmware")).toHaveLength(1);
    await shotWhenLoaded(page, "i28e-batch-progress");

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect(page.getByTestId("batch-job")).toHaveCount(2);
    await atPhoneWidth(page, "i28e-batch-progress-390");
    const progressUrl = page.url();
    await page.goto(`${base()}${tenant}/device-batches`);
    await page.getByLabel("Location").selectOption({ label: "Car park" });
    await expect(page.getByTestId("batch-station")).toHaveCount(2);
    await atPhoneWidth(page, "i28e-batch-form-390");
    await page.setViewportSize({ width: 1280, height: 900 });

    // The batch is listed among the batches so far, done, and its link leads back to its progress.
    const listed = page.getByTestId("past-batch");
    await expect(listed).toHaveCount(1);
    await expect(listed).toContainText("2 of 2 stations");
    await expect(listed).toContainText("installed 2");
    await listed.getByRole("link", { name: /^Firmware update, / }).click();
    await page.waitForURL(progressUrl);
    await expect(page.getByTestId("batch-done")).toHaveText("2 of 2 done");
  });
});

async function atPhoneWidth(p: Page, name: string) {
  await fitsTheScreen(p);
  const { violations } = await new AxeBuilder({ page: p })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
  await shotWhenLoaded(p, name);
}
