import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { anOwner } from "./fixtures/owner";
import { accessTokenOf, base, direct, fitsTheScreen, shotWhenLoaded } from "./fixtures/people";

/**
 * Issue 25, item 6, in the console: a London location made with the country and time-zone
 * pickers (the zone follows the country: Europe/London, never New York), errors beside the fields
 * in words with what was typed kept, an edit, the location's page with its stations' live states
 * (linked by name) and its dates in its own zone, no map without MAP_TILE_URL, and delete asking
 * first (Cancel deletes nothing; the API's refusal while a station stands there said in words).
 * Each page held to WCAG 2.1 AA at 1280 and 390 px, and no wider than 390 px on a phone.
 */

let owner: BrowserContext;
let page: Page;
let tenantId: number;
let v1: Awaited<ReturnType<typeof anOwner>>["v1"];
let locationId: number;

const dialog = (p: Page) => p.getByRole("dialog");
const settle = (p: Page) => p.waitForTimeout(1_500);

let token: string;

/** The location as the API reads it (status and body), from the test process. */
async function read(id: number) {
  const res = await fetch(`${direct()}/v1/tenants/${tenantId}/locations/${id}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test.describe.serial("locations in the console", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(120_000);
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await owner.newPage();
    const signedUp = await anOwner(page, "Lou London", "locations");
    tenantId = signedUp.tenantId;
    v1 = signedUp.v1;
    token = await accessTokenOf(page);
  });

  test.afterAll(async () => {
    await owner.close();
  });

  test("a London location with the pickers: the zone follows the country; errors in words, input kept", async () => {
    await page.goto(`${base()}/console/t/${tenantId}/locations`);
    await page.getByLabel("Name").fill("King's Cross depot");
    await page.getByLabel("Street").fill("1 Pancras Square");
    await page.getByLabel("City").fill("London");
    // sent without a country, a time zone or coordinates: each said beside its field, in words
    await page.getByRole("button", { name: "Create location" }).click();
    const errors = page.getByTestId("field-error");
    await expect(errors).toContainText([
      "Choose the country from the list.",
      "Choose the location's time zone from the list.",
      "Latitude is a number from -90 to 90, e.g. 51.5074.",
      "Longitude is a number from -180 to 180, e.g. -0.1278.",
    ]);
    await expect(page.getByLabel("Country")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Name")).toHaveValue("King's Cross depot");
    await expect(page.getByLabel("City")).toHaveValue("London");
    await shotWhenLoaded(page, "i25d-location-errors");

    // the country by its whole name; a one-zone country sets its zone
    await page.getByLabel("Country").selectOption({ label: "United Kingdom" });
    await expect(page.getByLabel("Country").locator("option:checked")).toHaveText("United Kingdom");
    await expect(page.getByLabel("Time zone")).toHaveValue("Europe/London");
    await page.getByLabel("Latitude").fill("51.5347");
    await page.getByLabel("Longitude").fill("-0.1246");
    await page.getByRole("button", { name: "Create location" }).click();
    const row = page.getByTestId("location-row").filter({ hasText: "King's Cross depot" });
    await expect(row).toContainText("United Kingdom");
    await expect(row).toContainText("Europe/London");
    await expect(page.getByLabel("Name")).toHaveValue("");
    const href = await row.getByTestId("location-link").getAttribute("href");
    locationId = Number(/\/locations\/(\d+)$/.exec(href ?? "")?.[1]);
    const saved = await read(locationId);
    expect(saved.body).toMatchObject({
      name: "King's Cross depot",
      time_zone: "Europe/London",
      address: { country: "GB", city: "London" },
      coordinates: { latitude: 51.5347, longitude: -0.1246 },
    });
    await shotWhenLoaded(page, "i25d-locations");
  });

  test("edited on its page: a bad latitude said beside it, the rest kept; saved", async () => {
    await page
      .getByTestId("location-row")
      .filter({ hasText: "King's Cross depot" })
      .getByTestId("location-link")
      .click();
    await page.waitForURL(new RegExp(`/console/t/${tenantId}/locations/${locationId}$`));
    await page.getByRole("button", { name: "Edit location" }).click();
    await expect(page.getByLabel("Time zone")).toHaveValue("Europe/London");
    await page.getByLabel("Name").fill("King's Cross hub");
    await page.getByLabel("Latitude").fill("95");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByTestId("field-error")).toHaveText([
      "Latitude is a number from -90 to 90, e.g. 51.5074.",
    ]);
    await expect(page.getByLabel("Name")).toHaveValue("King's Cross hub");
    expect((await read(locationId)).body.name).toBe("King's Cross depot");
    await page.getByLabel("Latitude").fill("51.5310");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("heading", { name: "King's Cross hub" })).toBeVisible();
    await expect(page.getByTestId("location-country")).toHaveText("United Kingdom");
    expect((await read(locationId)).body).toMatchObject({
      name: "King's Cross hub",
      coordinates: { latitude: 51.531, longitude: -0.1246 },
      time_zone: "Europe/London",
    });
  });

  test("its page: stations with live states linked by name, dates in its zone, no map configured", async () => {
    const station = await v1("POST", "/stations", {
      name: `E2E-LDN-${Date.now().toString(36)}`,
      location_id: locationId,
      connector_count: 1,
    });
    const stationRow = page.getByTestId("location-station-row");
    await expect(stationRow.getByTestId("station-link")).toHaveText(String(station.name));
    await expect(stationRow.getByTestId("station-state")).toHaveText("offline");
    await expect(page.getByTestId("location-created")).toContainText("(Europe/London)");
    await expect(page.getByTestId("location-created")).toContainText(/\b(GMT|BST)\b/);
    await expect(page.getByTestId("no-map")).toContainText("No map is configured");
    // delete is refused while a station stands here, and says why
    await expect(page.getByTestId("delete-location")).toBeDisabled();
    await expect(page.getByTestId("delete-reason")).toContainText("move or delete them first");
    await shotWhenLoaded(page, "i25d-location");
    await stationRow.getByTestId("station-link").click();
    await page.waitForURL(new RegExp(`/console/t/${tenantId}/stations/${station.id}$`));
    // the station names its location, linked, and shows its times in the location's zone
    const where = page.getByTestId("station-location");
    await expect(where.getByTestId("location-link")).toHaveText("King's Cross hub");
    await expect(where).toContainText("times in Europe/London");
    await v1("DELETE", `/stations/${station.id}`);
  });

  test("delete asks first: Cancel deletes nothing; a station arriving meanwhile is refused in words; then deleted", async () => {
    await page.goto(`${base()}/console/t/${tenantId}/locations/${locationId}`);
    await expect(page.getByText("No station stands here yet")).toBeVisible();
    await page.getByTestId("delete-location").click();
    await expect(dialog(page)).toContainText("removed for good");
    await shotWhenLoaded(page, "i25d-confirm-delete-location");
    await dialog(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(dialog(page)).toBeHidden();
    await settle(page);
    expect((await read(locationId)).status).toBe(200);

    // a station registered there while the question is open: the API refuses, said in the dialog
    await page.getByTestId("delete-location").click();
    const late = await v1("POST", "/stations", {
      name: `E2E-LDN2-${Date.now().toString(36)}`,
      location_id: locationId,
      connector_count: 1,
    });
    await dialog(page).getByRole("button", { name: "Delete location" }).click();
    await expect(dialog(page)).toContainText(
      "A station stands at this location; move or delete it first.",
    );
    expect((await read(locationId)).status).toBe(200);
    await dialog(page).getByRole("button", { name: "Cancel", exact: true }).click();

    await v1("DELETE", `/stations/${late.id}`);
    await expect(page.getByTestId("delete-location")).toBeEnabled();
    await page.getByTestId("delete-location").click();
    await dialog(page).getByRole("button", { name: "Delete location" }).click();
    await page.waitForURL(new RegExp(`/console/t/${tenantId}/locations$`));
    expect((await read(locationId)).status).toBe(404);
  });

  test("at 390 px: the list, a location's page and its edit form fit and pass axe", async () => {
    const made = await v1("POST", "/locations", {
      name: "Manchester Piccadilly long-stay car park charging hub",
      address: { street: "Fairfield Street", city: "Manchester", country: "GB" },
      coordinates: { latitude: 53.4774, longitude: -2.2309 },
      time_zone: "Europe/London",
    });
    await v1("POST", "/stations", {
      name: `E2E-MAN-${Date.now().toString(36)}`,
      location_id: made.id,
      connector_count: 2,
    });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base()}/console/t/${tenantId}/locations`);
    await expect(page.getByTestId("location-row").first()).toBeVisible();
    await fitsTheScreen(page);
    await shotWhenLoaded(page, "i25d-locations-390");
    await page.goto(`${base()}/console/t/${tenantId}/locations/${made.id}`);
    await expect(page.getByTestId("location-station-row")).toHaveCount(1);
    await fitsTheScreen(page);
    await shotWhenLoaded(page, "i25d-location-390");
    await page.getByRole("button", { name: "Edit location" }).click();
    await expect(page.getByLabel("Country").locator("option:checked")).toHaveText("United Kingdom");
    await fitsTheScreen(page);
    await shotWhenLoaded(page, "i25d-location-edit-390");
  });
});
