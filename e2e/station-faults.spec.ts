import { expect, test, type Locator } from "@playwright/test";
import { aCharger } from "../testing/ocpp";
import { csvMatchesShown, exportCsv, shownMoment, shownRows } from "./fixtures/csv";
import { aStation, anOwner } from "./fixtures/owner";
import { base, shot } from "./fixtures/people";
import { loopback } from "./fixtures/product";

/**
 * Issue 25, the console's fault history: a fault a real strict ocpp-rpc OCPP 1.6 charger raises
 * appears on the station's page while it is open (marked, in words, without a reload), moves to
 * the cleared list when the connector recovers, with when it was raised and cleared; a
 * station-wide fault is said as such; the export is the rows shown; axe (WCAG 2.1 AA) at 1280 and
 * 390 px, nothing wider than the phone.
 */

/** The zone of the location `aStation` makes: a station's page shows its times in it. */
const ZONE = "America/New_York";

/** The cell of `row` (one row) under the column headed `header`. */
const cell = (row: Locator, header: string) =>
  row.locator(
    `td:nth-child(${["Connector", "EVSE", "Error", "Info", "Vendor error", "Raised", "Cleared"].indexOf(header) + 1})`,
  );

type Fault = { fault_id: number; opened_at: string; cleared_at: string | null };

test("a station's faults: raised by a real charger, open, then cleared, exported", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const { tenantId, v1 } = await anOwner(page, "Fay Faults", "faults");
  const made = await aStation(v1, "E2E-FAULTS");
  const password = `e2e-faults-password-${Date.now()}`;
  await v1("PUT", `/stations/${made.id}/credentials`, { password });
  const station = (await v1("GET", `/stations/${made.id}`)) as unknown as {
    name: string;
    connection_url: string;
  };
  const faults = async (open = false) =>
    (
      (await v1("GET", `/stations/${made.id}/faults${open ? "?open=true" : ""}`)) as unknown as {
        data: Fault[];
      }
    ).data;

  await page.goto(`${base()}/console/t/${tenantId}/stations/${made.id}`);
  const section = page.getByTestId("station-faults");
  await expect(section.getByText("No open faults", { exact: true })).toBeVisible();
  await expect(section.getByText("No cleared faults", { exact: true })).toBeVisible();
  // a mark on this document: gone if the page were loaded again
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

  const charger = aCharger({
    url: loopback(station.connection_url.replace(`/${encodeURIComponent(station.name)}`, "")),
    identity: station.name,
    password,
    protocol: "ocpp1.6",
  });
  await charger.connect();
  try {
    await charger.call("BootNotification", { chargePointVendor: "E2E", chargePointModel: "Sim" });
    await charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Available",
    });
    // Raised: open, marked, in words, live.
    await charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "GroundFailure",
      status: "Faulted",
      info: "Residual current 30 mA",
      vendorId: "ACME",
      vendorErrorCode: "E-17",
    });
    const open = section.getByTestId("open-fault-row");
    await expect(open).toHaveCount(1, { timeout: 15_000 });
    await expect(open).toContainText("Ground failure");
    await expect(open).toContainText("Residual current 30 mA");
    await expect(open).toContainText("ACME E-17");
    const [raised] = await faults(true);
    expect(raised!.cleared_at).toBeNull();
    // when it was raised, in the station's zone as the rest of its page
    await expect(cell(open, "Raised")).toHaveText(await shownMoment(page, raised!.opened_at, ZONE));
    const shown = (await shownRows(section, "open-fault-row"))[0]!;
    expect(shown).toMatchObject({ Connector: "1", EVSE: "1", Cleared: "open" });
    await expect(section.getByTestId("cleared-fault-row")).toHaveCount(0);
    for (const [width, height, name] of [
      [1280, 900, "desktop"],
      [390, 844, "phone"],
    ] as const) {
      await page.setViewportSize({ width, height });
      await shot(page, `i25x-station-faults-open-${name}`);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(wide, `station page at ${width} px`).toBeLessThanOrEqual(width);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // Recovered: the fault moves to the cleared list, with when it was cleared.
    await charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Available",
    });
    const cleared = section.getByTestId("cleared-fault-row");
    await expect(cleared).toHaveCount(1, { timeout: 15_000 });
    await expect(open).toHaveCount(0);
    await expect(section.getByText("No open faults", { exact: true })).toBeVisible();
    const [after] = await faults();
    expect(after!.fault_id).toBe(raised!.fault_id);
    expect(after!.cleared_at).not.toBeNull();
    await expect(cleared).toContainText("Ground failure");
    await expect(cell(cleared, "Cleared")).toHaveText(
      await shownMoment(page, after!.cleared_at!, ZONE),
    );
    await expect(cell(cleared, "Raised")).toHaveText(
      await shownMoment(page, raised!.opened_at, ZONE),
    );

    // A fault of the whole station (connector 0), left open: listed first, said as such.
    await charger.call("StatusNotification", {
      connectorId: 0,
      errorCode: "HighTemperature",
      status: "Faulted",
    });
    await expect(open).toHaveCount(1, { timeout: 15_000 });
    await expect(open).toContainText("whole station");
    await expect(open).toContainText("High temperature");
    await expect(cleared).toHaveCount(1);
  } finally {
    await charger.close({ force: true });
  }
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);

  // The export: every fault, newest first, as the two lists show them (open, then cleared).
  const csv = await exportCsv(page, section);
  expect(csv[0]!.slice(0, 7)).toEqual([
    "Connector",
    "EVSE",
    "Error",
    "Info",
    "Vendor error",
    "Raised",
    "Cleared",
  ]);
  const shownAll = [
    ...(await shownRows(section, "open-fault-row")),
    ...(await shownRows(section, "cleared-fault-row")),
  ];
  const records = await csvMatchesShown(
    page,
    csv,
    shownAll,
    ["Connector", "EVSE", "Error", "Info", "Vendor error"],
    ["Raised"],
    ZONE,
  );
  expect(records.map((r) => r.Cleared === "open")).toEqual([true, false]);
  expect(records.map((r) => r["Error code"])).toEqual(["HighTemperature", "GroundFailure"]);
  const api = await faults();
  expect(records.map((r) => Number(r.Fault))).toEqual(api.map((f) => f.fault_id));
  await shot(page, "i25x-station-faults");
});
