import fs from "node:fs";
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { aCharger } from "../testing/ocpp";
import { anOwner, aStation } from "./fixtures/owner";
import { parseCsv } from "./fixtures/csv";
import { base, shot } from "./fixtures/people";

/**
 * Issue 25, items 1, 2 and 9: the overview moves live as a real strict ocpp-rpc charger connects,
 * charges and faults; a transaction's chart has a point per meter sample; the transactions CSV is
 * the rows shown; each new page passes axe (WCAG 2.1 AA) at 1280 and 390 px and is kept as a
 * screenshot in the e2e output.
 */

async function bothWidths(page: Page, info: TestInfo, name: string) {
  for (const [width, height, suffix] of [
    [1280, 900, "desktop"],
    [390, 844, "phone"],
  ] as const) {
    await page.setViewportSize({ width, height });
    await shot(page, `${name}-${suffix}`);
    await info.attach(`${name}-${suffix}`, {
      path: `test-results/screenshots/${name}-${suffix}.png`,
      contentType: "image/png",
    });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("the overview, a transaction's page and the transactions export, with a real charger", async ({
  page,
}, info) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const { tenantId, v1 } = await anOwner(page, "Cora Cockpit", "cockpit");
  // A new project lands on its overview, whose checklist starts at the location.
  await expect(page.getByTestId("first-run")).toBeVisible();
  await expect(page.getByTestId("setup-step-1")).toHaveAttribute("data-done", "false");
  await bothWidths(page, info, "overview-first-run");

  const station = await aStation(v1, "E2E-COCKPIT");
  await expect(page.getByTestId("setup-step-2")).toHaveAttribute("data-done", "true");
  // The password step makes one, shows it once with a copy button.
  await page.getByRole("button", { name: "Make a password" }).click();
  const password = (await page.getByTestId("secret-once").textContent())!.trim();
  expect(password.length).toBeGreaterThanOrEqual(16);
  await expect(page.getByTestId("setup-step-3")).toHaveAttribute("data-done", "true");
  await expect(page.getByTestId("first-run")).toContainText("OCPP 2.0.1");
  await expect(page.getByTestId("waiting-first-connection")).toContainText("Nothing from");
  await expect(page.getByTestId("count-offline")).toHaveText(/^1/);
  await expect(page.getByTestId("count-online")).toHaveText(/^0/);

  const read = (await v1("GET", `/stations/${station.id}`)) as unknown as {
    name: string;
    connection_url: string;
  };
  const charger = aCharger({
    url: read.connection_url
      .replace(`/${encodeURIComponent(read.name)}`, "")
      .replace(/\/\/[^/:]+/, "//127.0.0.1"),
    identity: read.name,
    password,
    protocol: "ocpp1.6",
  });
  await charger.connect();
  const samples = 6;
  try {
    // Connect: online without a reload; the boot ends the checklist.
    await expect(page.getByTestId("count-online")).toHaveText(/^1/, { timeout: 15_000 });
    await expect(page.getByTestId("count-offline")).toHaveText(/^0/);
    await charger.call("BootNotification", { chargePointVendor: "E2E", chargePointModel: "Sim" });
    await expect(page.getByTestId("first-run")).toHaveCount(0, { timeout: 15_000 });

    // Charge: the charging count, and the running transaction with its power.
    const start = Date.now() - 120_000;
    await charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Charging",
    });
    const started = (await charger.call("StartTransaction", {
      connectorId: 1,
      idTag: "COCKPIT-TAG",
      meterStart: 1000,
      timestamp: new Date(start).toISOString(),
    })) as { transactionId: number };
    await expect(page.getByTestId("count-charging")).toHaveText(/^1/, { timeout: 15_000 });
    for (let i = 1; i <= samples; i += 1)
      await charger.call("MeterValues", {
        connectorId: 1,
        transactionId: started.transactionId,
        meterValue: [
          {
            timestamp: new Date(start + i * 15_000).toISOString(),
            sampledValue: [
              {
                value: String(1000 + i * 250),
                measurand: "Energy.Active.Import.Register",
                unit: "Wh",
              },
              { value: String(6000 + i * 200), measurand: "Power.Active.Import", unit: "W" },
              { value: String(40 + i), measurand: "SoC", unit: "Percent" },
              { value: String(30 + i), measurand: "Current.Import", unit: "A" },
              { value: "230", measurand: "Voltage", unit: "V" },
            ],
          },
        ],
      });
    await expect(page.getByTestId("active-power")).toHaveText(/^7\.2(0*) kW$/, { timeout: 15_000 });
    await expect(page.getByTestId("active-session")).toHaveCount(1);

    // Fault: the faulted count and an alert naming the station, linking to it.
    await charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "GroundFailure",
      status: "Faulted",
    });
    await expect(page.getByTestId("count-faulted")).toHaveText(/^1/, { timeout: 15_000 });
    await expect(page.getByTestId("count-charging")).toHaveText(/^0/);
    const alert = page.getByTestId("alert").filter({ hasText: read.name });
    await expect(alert).toContainText("GroundFailure");
    await expect(alert.getByRole("link")).toHaveAttribute(
      "href",
      `/console/t/${tenantId}/stations/${station.id}`,
    );
    await bothWidths(page, info, "overview-live");

    // The faulted count links to the list filtered to faulted stations.
    await page.getByTestId("count-faulted").click();
    await page.waitForURL(/\/stations\?state=faulted$/);
    await expect(page.getByTestId("station-row")).toHaveCount(1);
    await expect(page.getByTestId("station-row")).toContainText(read.name);

    await charger.call("StopTransaction", {
      transactionId: started.transactionId,
      meterStop: 1000 + samples * 250,
      timestamp: new Date(start + (samples + 1) * 15_000).toISOString(),
      reason: "Local",
    });
  } finally {
    await charger.close({ force: true });
  }

  // The transactions list: the row links to its page, whose power chart has a point per sample.
  await page.goto(`${base()}/console/t/${tenantId}/transactions`);
  const row = page.getByTestId("transaction-row").first();
  await expect(row).toContainText(read.name);
  await expect(row).toContainText("COCKPIT-TAG");
  await expect(row).toContainText("1.500");
  await bothWidths(page, info, "transactions");

  // CSV export of what is filtered: the file parses into the rows on screen.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export CSV" }).click(),
  ]);
  const csv = parseCsv(fs.readFileSync(await download.path(), "utf8").replace(/^\uFEFF/, ""));
  const headers = await page.locator("table thead th").allInnerTexts();
  expect(csv[0]!.map((h) => h.toUpperCase())).toEqual(headers.map((h) => h.toUpperCase()));
  const shown = await page
    .getByTestId("transaction-row")
    .evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent?.trim() ?? "")),
    );
  const body = csv.slice(1);
  expect(body).toHaveLength(shown.length);
  const compare = [
    "ID",
    "Station",
    "Connector",
    "Token",
    "Status",
    "Duration",
    "Energy (kWh)",
    "Cost",
  ];
  for (const [i, cells] of shown.entries())
    for (const name of compare) {
      const col = csv[0]!.indexOf(name);
      expect(body[i]![col] === "" ? "—" : body[i]![col], `${name} of row ${i}`).toBe(cells[col]);
    }
  // Started is an instant in the file and local time on screen: the same moment.
  const startedCol = csv[0]!.indexOf("Started");
  expect(Date.parse(body[0]![startedCol]!)).toBeGreaterThan(0);

  await row.getByRole("link").first().click();
  await page.waitForURL(/\/transactions\/\d+$/);
  const transactionId = Number(/\/transactions\/(\d+)$/.exec(page.url())![1]);
  const api = (await v1("GET", `/transactions/${transactionId}/meter-samples`)) as unknown as {
    data: unknown[];
  };
  expect(api.data).toHaveLength(samples);
  await expect(page.getByTestId("chart-power").locator("circle[data-point]")).toHaveCount(samples);
  await expect(page.getByTestId("chart-energy").locator("circle[data-point]")).toHaveCount(samples);
  await expect(page.getByTestId("chart-soc").locator("circle[data-point]")).toHaveCount(samples);
  await expect(page.getByTestId("chart-current")).toBeVisible();
  await expect(page.getByTestId("chart-voltage")).toBeVisible();
  await expect(page.getByTestId("transaction-cost")).toContainText("No bill");
  await expect(
    page.getByTestId("transaction-links").getByRole("link", { name: read.name }),
  ).toHaveAttribute("href", `/console/t/${tenantId}/stations/${station.id}`);
  await bothWidths(page, info, "transaction");
});
