import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import type { RPCClient } from "ocpp-rpc";
import { aCharger } from "../testing/ocpp";
import { aStation, anOwner } from "./fixtures/owner";
import { base, fitsTheScreen, shotWhenLoaded } from "./fixtures/people";
import { loopback } from "./fixtures/product";

/**
 * Issue 28, points 1 and 6, in the console: the station's Profiles tab against a real strict
 * ocpp-rpc OCPP 1.6 charger. A limit is set only after the dialog is confirmed (Cancel sends
 * nothing), clearing is confirmed too, the composite schedule is read and shown, and a limit the
 * protocol refuses is said in words before anything is sent. Every check of what was sent is made
 * on the frames the charger itself received.
 */

type Frame = { method: string; params: Record<string, any> };

let owner: BrowserContext;
let page: Page;
let path: string;
let charger: RPCClient;
const received: Frame[] = [];
const sent = (method: string) => received.filter((f) => f.method === method).map((f) => f.params);
const dialog = (p: Page) => p.getByRole("dialog");

test.describe.serial("a station's charging profiles in the console", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(120_000);
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await owner.newPage();
    const signedUp = await anOwner(page, "Pat Profiles", "profiles");
    const station = await aStation(signedUp.v1, "E2E-I28A");
    path = `/console/t/${signedUp.tenantId}/stations/${station.id}/charging-profiles`;
    const password = "e2e-i28a-console-password";
    await signedUp.v1("PUT", `/stations/${station.id}/credentials`, { password });
    const read = (await signedUp.v1("GET", `/stations/${station.id}`)) as unknown as {
      name: string;
      connection_url: string;
    };
    charger = aCharger({
      url: loopback(read.connection_url.replace(`/${read.name}`, "")),
      identity: read.name,
      password,
      protocol: "ocpp1.6",
    });
    const answer = (method: string, reply: (params: any) => Record<string, unknown>) =>
      charger.handle(method, ({ params = {} }) => {
        received.push({ method, params });
        return Promise.resolve(reply(params));
      });
    answer("SetChargingProfile", () => ({ status: "Accepted" }));
    answer("ClearChargingProfile", () => ({ status: "Accepted" }));
    answer("GetCompositeSchedule", (p: { connectorId: number; duration: number }) => ({
      status: "Accepted",
      connectorId: p.connectorId,
      scheduleStart: new Date().toISOString(),
      chargingSchedule: {
        duration: p.duration,
        chargingRateUnit: "A",
        chargingSchedulePeriod: [
          { startPeriod: 0, limit: 16 },
          { startPeriod: 3600, limit: 32 },
        ],
      },
    }));
    charger.handle(({ method = "?", params = {} }) => {
      received.push({ method, params });
      return Promise.reject(new Error(`unexpected ${method}`));
    });
    await charger.connect();
    await charger.call("BootNotification", { chargePointVendor: "E2E", chargePointModel: "Limit" });
  });

  test.afterAll(async () => {
    await charger?.close({ force: true });
    await owner?.close();
  });

  test("a limit is checked in the browser, sent only once confirmed, and listed as installed", async () => {
    await page.goto(`${base()}${path}`);
    await expect(page.getByTestId("station-connection")).toHaveText("online");
    await expect(page.getByTestId("station-tab-charging-profiles")).toHaveAttribute(
      "aria-current",
      "page",
    );
    await expect(page.getByText("No charging profile set yet")).toBeVisible();

    await page.getByLabel("Limit", { exact: true }).fill("16.05");
    await expect(page.getByTestId("charging-profile-guard")).toContainText("in tenths");
    await expect(page.getByRole("button", { name: "Set limit…" })).toBeDisabled();

    await page.getByLabel("Limit", { exact: true }).fill("16.5");
    await page.getByRole("button", { name: "Set limit…" }).click();
    await expect(dialog(page)).toContainText("Limits the whole station to 16.5 A");
    await shotWhenLoaded(page, "i28a-profile-confirm");
    await dialog(page).getByRole("button", { name: "Cancel" }).click();
    await page.waitForTimeout(1_000);
    expect(sent("SetChargingProfile")).toEqual([]);

    await page.getByRole("button", { name: "Set limit…" }).click();
    await dialog(page).getByRole("button", { name: "Set limit" }).click();
    await expect(page.getByTestId("charging-profile-status")).toHaveText("succeeded");
    const [set] = sent("SetChargingProfile");
    expect(set).toMatchObject({
      connectorId: 0,
      csChargingProfiles: {
        chargingProfileId: 1,
        stackLevel: 1,
        chargingProfilePurpose: "ChargePointMaxProfile",
        chargingProfileKind: "Absolute",
        chargingSchedule: {
          chargingRateUnit: "A",
          chargingSchedulePeriod: [{ startPeriod: 0, limit: 16.5 }],
        },
      },
    });
    const row = page.getByTestId("charging-profile-row");
    await expect(row).toHaveCount(1);
    await expect(row).toContainText("Station maximum");
    await expect(row).toContainText("16.5 A");
    await expect(row.getByTestId("charging-profile-state")).toHaveText("Installed");
    await shotWhenLoaded(page, "i28a-profiles");
  });

  test("the composite schedule is read and shown as periods", async () => {
    await page.getByRole("button", { name: "Read the next 24 hours" }).click();
    await expect(page.getByTestId("composite-period")).toHaveCount(2);
    await expect(page.getByTestId("composite-period").nth(1)).toContainText("+60 min");
    await expect(page.getByTestId("composite-period").nth(1)).toContainText("32 A");
    expect(sent("GetCompositeSchedule")).toEqual([
      { connectorId: 0, duration: 86400, chargingRateUnit: "A" },
    ]);
  });

  test("clearing asks first; once confirmed the profile is cleared", async () => {
    const row = page.getByTestId("charging-profile-row");
    await row.getByRole("button", { name: "Clear…" }).click();
    await expect(dialog(page)).toContainText("Profile #1");
    await dialog(page).getByRole("button", { name: "Cancel" }).click();
    await page.waitForTimeout(1_000);
    expect(sent("ClearChargingProfile")).toEqual([]);
    await row.getByRole("button", { name: "Clear…" }).click();
    await dialog(page).getByRole("button", { name: "Clear", exact: true }).click();
    await expect(row.getByTestId("charging-profile-state")).toHaveText("Cleared");
    expect(sent("ClearChargingProfile")).toEqual([{ id: 1 }]);
  });

  test("at 390 px the tab fits and passes axe", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base()}${path}`);
    await expect(page.getByTestId("charging-profile-row")).toHaveCount(1);
    await fitsTheScreen(page);
    await shotWhenLoaded(page, "i28a-profiles-390");
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
