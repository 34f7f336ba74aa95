import AxeBuilder from "@axe-core/playwright";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import type { RPCClient } from "ocpp-rpc";
import { aCharger } from "../testing/ocpp";
import { aStation, anOwner } from "./fixtures/owner";
import { base, fitsTheScreen, shotWhenLoaded } from "./fixtures/people";
import { loopback } from "./fixtures/product";

/**
 * Issue 28, points 3, 4 and 6, in the console: the station's "Reservations & local list" tab
 * against a real strict ocpp-rpc OCPP 1.6 charger. A connector is reserved for a token until a
 * time and shows it; cancelling asks first (it cannot be undone) and sends nothing until
 * confirmed; a refused reservation shows the charger's word; a full local list and then a
 * differential reach the charger in version order while the tab shows the version and the last
 * sync. Every check of what was sent is made on the frames the charger itself received.
 */

type Frame = { method: string; params: Record<string, any> };
type V1 = Awaited<ReturnType<typeof anOwner>>["v1"];

let owner: BrowserContext;
let page: Page;
let v1: V1;
let tab: string;
let stationPage: string;
let station: { id: number; connectors: { id: number }[] };
let charger: RPCClient;
const received: Frame[] = [];
const sent = (method: string) => received.filter((f) => f.method === method).map((f) => f.params);
const dialog = (p: Page) => p.getByRole("dialog");
/** what the charger answers the next ReserveNow */
const reserveAnswers: string[] = [];

/** A `datetime-local` value `minutes` from now in this machine's zone (the browser's too). */
function localInput(minutes: number) {
  const d = new Date(Date.now() + minutes * 60_000);
  d.setSeconds(0, 0);
  const local = new Date(d.getTime() - d.getTimezoneOffset() * 60_000);
  return { input: local.toISOString().slice(0, 16), iso: d.toISOString() };
}

test.describe.serial("a station's reservations and local list in the console", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(120_000);
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await owner.newPage();
    const signedUp = await anOwner(page, "Rae Reserve", "reserve");
    v1 = signedUp.v1;
    station = await aStation(v1, "E2E-I28E-RES");
    stationPage = `/console/t/${signedUp.tenantId}/stations/${station.id}`;
    tab = `${stationPage}/reservations`;
    const password = "e2e-i28e-reservations-password";
    await v1("PUT", `/stations/${station.id}/credentials`, { password });
    const read = (await v1("GET", `/stations/${station.id}`)) as unknown as {
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
    answer("ReserveNow", () => ({ status: reserveAnswers.shift() ?? "Accepted" }));
    answer("CancelReservation", () => ({ status: "Accepted" }));
    answer("RemoteStartTransaction", () => ({ status: "Accepted" }));
    answer("SendLocalList", () => ({ status: "Accepted" }));
    charger.handle(({ method = "?", params = {} }) => {
      received.push({ method, params });
      return Promise.reject(new Error(`unexpected ${method}`));
    });
    await charger.connect();
    await charger.call("BootNotification", { chargePointVendor: "E2E", chargePointModel: "Hold" });
    await charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Available",
    });
  });

  test.afterAll(async () => {
    await charger?.close({ force: true });
    await owner?.close();
  });

  test("a connector is reserved for a token until a time, and shows it", async () => {
    await page.goto(`${base()}${tab}`);
    await expect(page.getByTestId("station-connection")).toHaveText("online");
    await expect(page.getByTestId("station-tab-reservations")).toHaveAttribute(
      "aria-current",
      "page",
    );
    await expect(page.getByText("No reservations yet")).toBeVisible();
    const until = localInput(120);
    await page.getByLabel("Token").fill("RES-TAG-1");
    await page.getByLabel("Until").fill(until.input);
    await page.getByRole("button", { name: "Reserve", exact: true }).click();
    const row = page.getByTestId("reservation-row");
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId("reservation-status")).toHaveText("accepted");
    await expect(row).toContainText("RES-TAG-1");
    const [reserve] = sent("ReserveNow");
    expect(reserve).toEqual({
      connectorId: 1,
      idTag: "RES-TAG-1",
      expiryDate: until.iso,
      reservationId: expect.any(Number),
    });

    // The station's page shows the connector held, linked to the tab.
    await page.goto(`${base()}${stationPage}`);
    const held = page.getByTestId("connector-reservation-1");
    await expect(held).toContainText("RES-TAG-1");
    await expect(held).toContainText("(accepted)");
    await expect(held.getByRole("link")).toHaveAttribute("href", tab);
  });

  test("cancelling asks first (it cannot be undone); once confirmed it is canceled", async () => {
    await page.goto(`${base()}${tab}`);
    const row = page.getByTestId("reservation-row");
    await row.getByRole("button", { name: "Cancel…" }).click();
    await expect(dialog(page)).toContainText("RES-TAG-1");
    await expect(dialog(page)).toContainText("cannot be undone");
    await shotWhenLoaded(page, "i28e-reservation-cancel-confirm");
    await dialog(page).getByRole("button", { name: "Keep it" }).click();
    await page.waitForTimeout(1_000);
    expect(sent("CancelReservation")).toEqual([]);
    await expect(row.getByTestId("reservation-status")).toHaveText("accepted");

    await row.getByRole("button", { name: "Cancel…" }).click();
    await dialog(page).getByRole("button", { name: "Cancel reservation" }).click();
    await expect(row.getByTestId("reservation-status")).toHaveText("canceled");
    await expect(row.getByRole("button", { name: "Cancel…" })).toHaveCount(0);
    expect(sent("CancelReservation")).toEqual([
      { reservationId: sent("ReserveNow")[0]!.reservationId },
    ]);
    await page.goto(`${base()}${stationPage}`);
    await expect(page.getByTestId("connector-status-1")).toHaveText("Available");
    await expect(page.getByTestId("connector-reservation-1")).toHaveText("");
  });

  test("a reservation the charger refuses shows the charger's word", async () => {
    reserveAnswers.push("Occupied");
    await page.goto(`${base()}${tab}`);
    await page.getByLabel("Token").fill("RES-TAG-2");
    await page.getByRole("button", { name: "Reserve", exact: true }).click();
    const row = page.getByTestId("reservation-row").filter({ hasText: "RES-TAG-2" });
    await expect(row.getByTestId("reservation-status")).toHaveText("occupied");
    await expect(page.getByTestId("reservation-operation")).toHaveText("rejected");
    await expect(page.getByTestId("reservations")).toContainText("The charger answered Occupied");
    expect(sent("ReserveNow").map((r) => r.idTag)).toEqual(["RES-TAG-1", "RES-TAG-2"]);
  });

  test("a full list, then a differential, reach the charger in version order", async () => {
    // A token the service issues (a start command), then the tab sends the whole list.
    await v1("POST", `/stations/${station.id}/commands`, {
      action: "start",
      connector_id: station.connectors[0]!.id,
      token: "LIST-TAG-A",
    });
    await expect.poll(() => sent("RemoteStartTransaction").length).toBe(1);
    await page.goto(`${base()}${tab}`);
    const list = page.getByTestId("local-list");
    await expect(list.getByTestId("local-list-version")).toHaveText("0");
    await expect(list.getByTestId("local-list-synced-at")).toHaveText("Never");
    await list.getByRole("button", { name: "Send full list" }).click();
    await expect(list.getByTestId("local-list-version")).toHaveText("1");
    await expect(list.getByTestId("local-list-synced-at")).not.toHaveText("Never");
    await expect(list.getByTestId("local-list-operation")).toHaveText("succeeded");

    // The operator blocks that token and another is issued: "Send changes" sends only those.
    await v1("PUT", "/tokens/LIST-TAG-A/block");
    await v1("POST", `/stations/${station.id}/commands`, {
      action: "start",
      connector_id: station.connectors[0]!.id,
      token: "LIST-TAG-B",
    });
    await expect.poll(() => sent("RemoteStartTransaction").length).toBe(2);
    await list.getByRole("button", { name: "Send changes" }).click();
    await expect(list.getByTestId("local-list-version")).toHaveText("2");

    const sends = sent("SendLocalList");
    expect(sends.map((s) => [s.listVersion, s.updateType])).toEqual([
      [1, "Full"],
      [2, "Differential"],
    ]);
    expect(sends[0]!.localAuthorizationList).toEqual([
      { idTag: "LIST-TAG-A", idTagInfo: { status: "Accepted", expiryDate: expect.any(String) } },
    ]);
    const diff = [...sends[1]!.localAuthorizationList].sort((a: any, b: any) =>
      String(a.idTag).localeCompare(String(b.idTag)),
    );
    expect(diff).toEqual([
      { idTag: "LIST-TAG-A", idTagInfo: expect.objectContaining({ status: "Blocked" }) },
      { idTag: "LIST-TAG-B", idTagInfo: { status: "Accepted", expiryDate: expect.any(String) } },
    ]);

    // On a fresh load the version and the sync time are the charger's last confirmed ones.
    const state = (await v1("GET", `/stations/${station.id}/local-list`)) as unknown as {
      synced_at: string;
    };
    await page.reload();
    await expect(list.getByTestId("local-list-version")).toHaveText("2");
    await expect(list.getByTestId("local-list-synced-at")).toHaveText(
      await page.evaluate(
        (iso) =>
          new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "long" }).format(
            new Date(iso),
          ),
        state.synced_at,
      ),
    );
    await shotWhenLoaded(page, "i28e-reservations-local-list");
  });

  test("at 390 px the tab fits and passes axe", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base()}${tab}`);
    await expect(page.getByTestId("reservation-row")).toHaveCount(2);
    await expect(page.getByTestId("local-list-version")).toHaveText("2");
    await fitsTheScreen(page);
    const { violations } = await new AxeBuilder({ page })
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
      .analyze();
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual(
      [],
    );
    await shotWhenLoaded(page, "i28e-reservations-390");
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
