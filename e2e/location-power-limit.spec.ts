import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import type { RPCClient } from "ocpp-rpc";
import { aCharger } from "../testing/ocpp";
import { aStation, anOwner } from "./fixtures/owner";
import { base, fitsTheScreen, shotWhenLoaded } from "./fixtures/people";
import { loopback } from "./fixtures/product";

/**
 * Issue 28, points 2 and 6, in the console: a location's power limit set from its page, shared
 * between two real strict OCPP 1.6 chargers as their sessions start and stop, the shares listed
 * with each charger's answer and drawn as a chart, and the limit removed only after a
 * confirmation. What the chargers were sent is read from the frames they received.
 */

type Frame = { at: number; params: Record<string, any> };

let owner: BrowserContext;
let page: Page;
let path: string;
const chargers: { name: string; client: RPCClient; profiles: Frame[]; clears: Frame[] }[] = [];
const transactions: number[] = [];
const dialog = (p: Page) => p.getByRole("dialog");
/** the last limit (A) a charger was sent */
const lastLimit = (i: number) =>
  chargers[i]!.profiles.at(-1)?.params.csChargingProfiles.chargingSchedule.chargingSchedulePeriod[0]
    .limit as number | undefined;

test.describe.serial("a location's power limit in the console", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(120_000);
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await owner.newPage();
    const signedUp = await anOwner(page, "Pia Power", "power");
    const first = await aStation(signedUp.v1, "E2E-POWER-A");
    const firstRead = (await signedUp.v1("GET", `/stations/${first.id}`)) as unknown as {
      location_id: number;
    };
    const second = (await signedUp.v1("POST", "/stations", {
      name: `E2E-POWER-B-${Date.now().toString(36)}`,
      location_id: firstRead.location_id,
      connector_count: 1,
    })) as { id: number };
    path = `/console/t/${signedUp.tenantId}/locations/${firstRead.location_id}`;
    for (const id of [first.id, second.id]) {
      const password = `e2e-power-password-${id}`;
      await signedUp.v1("PUT", `/stations/${id}/credentials`, { password });
      const read = (await signedUp.v1("GET", `/stations/${id}`)) as unknown as {
        name: string;
        connection_url: string;
      };
      const client = aCharger({
        url: loopback(read.connection_url.replace(`/${read.name}`, "")),
        identity: read.name,
        password,
        protocol: "ocpp1.6",
      });
      const entry = { name: read.name, client, profiles: [] as Frame[], clears: [] as Frame[] };
      client.handle("SetChargingProfile", ({ params }) => {
        entry.profiles.push({ at: Date.now(), params: params as Record<string, any> });
        return Promise.resolve({ status: "Accepted" });
      });
      client.handle("ClearChargingProfile", ({ params }) => {
        entry.clears.push({ at: Date.now(), params: params as Record<string, any> });
        return Promise.resolve({ status: "Accepted" });
      });
      await client.connect();
      await client.call("BootNotification", { chargePointVendor: "E2E", chargePointModel: "Pw" });
      chargers.push(entry);
    }
  });

  test.afterAll(async () => {
    for (const c of chargers) await c.client.close({ force: true });
    await owner?.close();
  });

  test("a limit is set from the location's page, with its rules checked before sending", async () => {
    await page.goto(`${base()}${path}`);
    const card = page.getByTestId("power-limit");
    await expect(card).toContainText("No power limit");
    await card.getByRole("button", { name: "Set a power limit" }).click();
    await card.getByLabel("Site limit (kW)").fill("30");
    await card.getByLabel("Minimum per session (kW)").fill("25");
    await expect(page.getByTestId("power-limit-guard")).toHaveText(
      "The minimum per session cannot be above its maximum.",
    );
    await expect(card.getByRole("button", { name: "Set the limit" })).toBeDisabled();
    await card.getByLabel("Minimum per session (kW)").fill("0");
    await card.getByRole("button", { name: "Set the limit" }).click();
    await expect(page.getByTestId("power-limit-max")).toHaveText("30.0 kW");
    await expect(card).toContainText("left alone within 1 A or 10 % of its fair share");
    await expect(card).toContainText("No session is charging under the limit");
  });

  test("two sessions share the limit, live, each charger told its share", async () => {
    const start = async (i: number) => {
      const c = chargers[i]!.client;
      await c.call("StatusNotification", {
        connectorId: 1,
        errorCode: "NoError",
        status: "Charging",
      });
      const started = (await c.call("StartTransaction", {
        connectorId: 1,
        idTag: `POWER-${i}`,
        meterStart: 0,
        timestamp: new Date().toISOString(),
      })) as { transactionId: number };
      transactions.push(started.transactionId);
    };
    await start(0);
    // Alone, the first session gets its connector's maximum: 22,080 W is 31.8 A on three phases
    // (rounded down), so 21,942 W.
    await expect.poll(() => lastLimit(0), { timeout: 5_000 }).toBe(31.8);
    const rows = page.getByTestId("power-share-row");
    await expect(rows).toHaveCount(1, { timeout: 10_000 });
    await expect(rows.first().getByTestId("power-share")).toHaveText("21.9 kW");
    await expect(rows.first().getByTestId("power-share-answer")).toHaveText("Taken");
    await expect(rows.first()).toContainText(chargers[0]!.name);

    await start(1);
    // Both: 15 kW each (21.7 A per phase, rounded down), and never more than 30 kW sent in all.
    await expect.poll(() => [lastLimit(0), lastLimit(1)], { timeout: 5_000 }).toEqual([21.7, 21.7]);
    await expect(rows).toHaveCount(2, { timeout: 10_000 });
    for (const row of await rows.all()) {
      await expect(row.getByTestId("power-share")).toHaveText("15.0 kW");
      await expect(row.getByTestId("power-share-answer")).toHaveText("Taken");
    }
    await expect(page.getByTestId("power-limit-allocated")).toHaveText("29.9 kW");
    const chart = page.getByTestId("power-limit-chart");
    await expect(chart.locator(".recharts-area")).toHaveCount(2);
    await expect(chart).toContainText("limit 30");
    await shotWhenLoaded(page, "i28-power-limit");

    // The second stops: the first gets its maximum back.
    await chargers[1]!.client.call("StopTransaction", {
      transactionId: transactions[1],
      meterStop: 500,
      timestamp: new Date().toISOString(),
    });
    await expect.poll(() => lastLimit(0), { timeout: 5_000 }).toBe(31.8);
    await expect(rows).toHaveCount(1, { timeout: 10_000 });
    await expect(rows.first().getByTestId("power-share")).toHaveText("21.9 kW");
    // The chart keeps the stopped session's history.
    await expect(chart.locator(".recharts-area")).toHaveCount(2);
  });

  test("at 390 px the location's page fits", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base()}${path}`);
    await expect(page.getByTestId("power-share-row")).toHaveCount(1);
    await fitsTheScreen(page);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test("removing the limit asks first; once confirmed the share is cleared from its charger", async () => {
    await page.goto(`${base()}${path}`);
    const card = page.getByTestId("power-limit");
    await card.getByTestId("remove-power-limit").click();
    await expect(dialog(page)).toContainText("main breaker");
    await dialog(page).getByRole("button", { name: "Cancel" }).click();
    await page.waitForTimeout(1_000);
    expect(chargers[0]!.clears).toEqual([]);
    await card.getByTestId("remove-power-limit").click();
    await dialog(page).getByRole("button", { name: "Remove the limit" }).click();
    await expect(card).toContainText("No power limit", { timeout: 10_000 });
    await expect.poll(() => chargers[0]!.clears.length, { timeout: 5_000 }).toBe(1);
    expect(chargers[0]!.clears[0]!.params.id).toBe(
      chargers[0]!.profiles.at(-1)!.params.csChargingProfiles.chargingProfileId,
    );
  });
});
