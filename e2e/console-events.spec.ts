import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { aCharger } from "../testing/ocpp";
import { anOwner, aStation } from "./fixtures/owner";
import { parseCsv } from "./fixtures/csv";
import { base, fitsTheScreen, shot } from "./fixtures/people";
import { loopback } from "./fixtures/product";

/**
 * Issue 25, item 3: the event log with a real strict ocpp-rpc charger. Newest first; a new charger
 * event appears at the top without a reload (the page polls from its cursor); a fault reads as
 * one line ("<station> connector 1 Faulted: GroundFailure"); the station filter takes a name and
 * narrows the list (an unknown name is said, not ignored); the JSON expands; markup a charger sent
 * is shown as text; axe WCAG 2.1 AA at 1280 and 390 px, nothing wider than 390 px at phone width.
 */

type V1 = Awaited<ReturnType<typeof anOwner>>["v1"];

async function connectedCharger(v1: V1, stationId: number) {
  const password = `e2e-events-password-${Date.now()}`;
  await v1("PUT", `/stations/${stationId}/credentials`, { password });
  const read = (await v1("GET", `/stations/${stationId}`)) as unknown as {
    name: string;
    connection_url: string;
  };
  const charger = aCharger({
    url: loopback(read.connection_url.replace(`/${encodeURIComponent(read.name)}`, "")),
    identity: read.name,
    password,
    protocol: "ocpp1.6",
  });
  await charger.connect();
  return { charger, name: read.name };
}

test("the event log: newest first, live at the top, readable lines, station by name, safe JSON", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const { tenantId, v1 } = await anOwner(page, "Evan Events", "events");
  const a = await aStation(v1, "E2E-EVA");
  const b = await aStation(v1, "E2E-EVB");
  const one = await connectedCharger(v1, a.id);
  const other = await connectedCharger(v1, b.id);
  try {
    await one.charger.call("BootNotification", {
      chargePointVendor: "E2E",
      chargePointModel: "Sim",
    });
    await other.charger.call("BootNotification", {
      chargePointVendor: "E2E",
      chargePointModel: "Other",
    });
    await one.charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Available",
    });

    await page.goto(`${base()}/console/t/${tenantId}/events`);
    const rows = page.getByTestId("event-row");
    await expect(rows.first()).toBeVisible();
    // Newest first: sequences fall down the page, and the newest is the one the API names last.
    const api = (await v1("GET", "/events?order=desc&limit=1")) as unknown as {
      data: { sequence: number }[];
    };
    const sequences = await rows.evaluateAll((els) =>
      els.map((e) => Number(e.getAttribute("data-sequence"))),
    );
    expect(sequences[0]).toBe(api.data[0]!.sequence);
    expect(sequences).toEqual([...sequences].sort((x, y) => y - x));
    await expect(rows.first().getByTestId("event-line")).toContainText(
      `${one.name} connector 1 Available`,
    );

    // Live: a fault the charger reports appears at the top without a reload, as one line; the
    // info it sent (markup) is text, never an element.
    const markup = "<img src=x onerror=window.__xss=1>";
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await one.charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "GroundFailure",
      status: "Faulted",
      info: markup,
    });
    const faultLine = page
      .getByTestId("event-line")
      .filter({ hasText: `${one.name} connector 1 Faulted: GroundFailure` });
    await expect(faultLine).toHaveCount(1, { timeout: 15_000 });
    const top = rows.first();
    await expect(top).toHaveAttribute("data-fresh", "true");
    await expect(top.getByTestId("event-line")).toContainText(
      `fault on connector 1: GroundFailure`,
    );
    await expect(top.getByTestId("event-line")).toContainText(markup);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await expect(page.locator("li[data-testid=event-row] img")).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBe(
      undefined,
    );
    // The station in the line links to its page.
    await expect(top.getByTestId("station-link")).toHaveAttribute(
      "href",
      `/console/t/${tenantId}/stations/${a.id}`,
    );

    // The JSON expands, pretty, with the markup as text.
    await expect(top.getByTestId("event-json")).toBeHidden();
    await top.locator("summary").click();
    const json = top.getByTestId("event-json");
    await expect(json).toBeVisible();
    await expect(json).toContainText('"error_code": "GroundFailure"');
    await expect(json).toContainText(markup.replaceAll('"', '\\"'));
    await expect(json.locator("img")).toHaveCount(0);

    for (const [width, height, suffix] of [
      [1280, 900, "desktop"],
      [390, 844, "phone"],
    ] as const) {
      await page.setViewportSize({ width, height });
      await expect(page.getByTestId("loading-state")).toHaveCount(0);
      await shot(page, `events-${suffix}`);
      if (width === 390) await fitsTheScreen(page);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // The station filter by name narrows the list to that station's events.
    const station = page.getByLabel("Station", { exact: true });
    await station.fill(other.name);
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.getByTestId("station-filter")).toContainText(other.name);
    await expect(rows.first().getByTestId("event-line")).toContainText(other.name);
    const lines = await page.getByTestId("event-line").allInnerTexts();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.startsWith(other.name), line).toBe(true);
    // live under the filter too: the other charger's new event arrives, the first's does not
    await one.charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Available",
    });
    await other.charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Preparing",
    });
    await expect(rows.first().getByTestId("event-line")).toContainText(
      `${other.name} connector 1 Preparing`,
      { timeout: 15_000 },
    );
    for (const line of await page.getByTestId("event-line").allInnerTexts())
      expect(line.startsWith(other.name), line).toBe(true);

    // The CSV export is what the filter shows: the same events, the same station and sentence.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export CSV" }).click(),
    ]);
    const csv = parseCsv(fs.readFileSync(await download.path(), "utf8").replace(/^\uFEFF/, ""));
    const head = csv[0]!;
    const shown = await rows.evaluateAll((els) =>
      els.map((e) => Number(e.getAttribute("data-sequence"))),
    );
    expect(csv.slice(1).map((r) => Number(r[head.indexOf("Sequence")]))).toEqual(shown);
    const firstLine = await rows.first().getByTestId("event-line").innerText();
    const first = csv[1]!;
    expect(first[head.indexOf("Station")]).toBe(other.name);
    expect(firstLine).toContain(`${other.name} ${first[head.indexOf("Event")]}`);
    expect(JSON.parse(first[head.indexOf("Data")]!)).toMatchObject({ ocpp_status: "Preparing" });

    // A name that is no station is said, not ignored.
    await station.fill("No-Such-Station");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.locator("#station-problem")).toContainText(
      'No station is named "No-Such-Station"',
    );
    await page.getByLabel("Types").fill("connector.status_changed");
    await station.fill(one.name);
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.locator("#station-problem, #type-problem")).toHaveCount(0);
    for (const line of await page.getByTestId("event-line").allInnerTexts())
      expect(line).toMatch(new RegExp(`^${one.name} connector 1 `));
    await expect(page.getByTestId("event-row")).toHaveCount(3); // Available, Faulted, Available
  } finally {
    await one.charger.close({ force: true });
    await other.charger.close({ force: true });
  }
});
