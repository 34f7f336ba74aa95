import { expect, test, type APIRequestContext } from "@playwright/test";
import { accessTokenOf, anEmail, base, direct, shot, signUp } from "./fixtures/people";

let n = 0;
/** A /v1 call as the signed-in person, from the test process. */
function v1(request: APIRequestContext, token: string) {
  return async (method: "GET" | "POST", path: string, data?: unknown) => {
    const res = await request.fetch(`${direct()}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(method === "POST" ? { "idempotency-key": `e2e-sessions-${Date.now()}-${++n}` } : {}),
      },
      ...(data === undefined ? {} : { data }),
    });
    expect(res.status(), `${method} ${path}: ${await res.text()}`).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown> & { id: string };
  };
}

test("the sessions page shows live status, usage and reports in order; a session's page its operations and events", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signUp(page, "Sam Settler", anEmail("sessions"));
  await page.getByLabel("Team name").fill("Sam's fleet");
  await page.getByLabel("Project name").fill("Booked chargers");
  await page.getByRole("button", { name: "Create project" }).click();
  await page.waitForURL(/\/console\/t\/\d+\/overview/);
  const tenantId = Number(/\/console\/t\/(\d+)\//.exec(page.url())?.[1]);
  const api = v1(page.request, await accessTokenOf(page));
  const t = `/tenants/${tenantId}`;

  const location = await api("POST", `${t}/locations`, {
    name: "Depot",
    address: { street: "1 Main St", city: "Springfield", postal_code: "12345", country: "US" },
    coordinates: { latitude: 40.7, longitude: -74 },
    time_zone: "America/New_York",
  });
  const station = (await api("POST", `${t}/stations`, {
    name: `sess-${Date.now()}`,
    location_id: location.id,
    connector_count: 1,
  })) as unknown as { id: number; connectors: { id: number }[] };
  const tariff = await api("POST", `${t}/tariffs`, { rate_minor_per_kwh: 35 });
  const body = {
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
    tariff_id: tariff.id,
    source: "simulated",
    processor: "fleet-account",
  };
  const paid = await api("POST", `${t}/charging-sessions`, {
    ...body,
    application_reference: "booking-paid",
  });
  await api("POST", `${t}/charging-sessions/${paid.id}/finalize`, { energy_wh: 10_000 });
  for (const [operation_reference, outcome] of [
    ["cap-1", "pending"],
    ["cap-1", "succeeded"],
  ] as const)
    await api("POST", `${t}/charging-sessions/${paid.id}/settlement-reports`, {
      kind: "capture",
      operation_reference,
      outcome,
      amount_minor: 350,
      currency: "USD",
    });
  const waiting = await api("POST", `${t}/charging-sessions`, {
    ...body,
    application_reference: "booking-waiting",
  });

  await page.getByRole("link", { name: "Charging sessions" }).click();
  await page.waitForURL(new RegExp(`/console/t/${tenantId}/sessions$`));
  const rows = page.getByTestId("session-row");
  await expect(rows).toHaveCount(2);
  const paidRow = rows.filter({ hasText: "booking-paid" });
  await expect(paidRow.getByTestId("session-status")).toHaveText("final");
  await expect(paidRow.getByTestId("session-usage")).toContainText("10.000 kWh");
  await expect(paidRow.getByTestId("session-reports").locator("li")).toHaveText([
    "capture cap-1: pending $3.50",
    "capture cap-1: succeeded $3.50",
  ]);
  const waitingRow = rows.filter({ hasText: "booking-waiting" });
  await expect(waitingRow.getByTestId("session-status")).toHaveText("created");
  await shot(page, "charging-sessions");
  // live: a change made elsewhere shows without a reload
  await api("POST", `${t}/charging-sessions/${waiting.id}/cancel`);
  await expect(waitingRow.getByTestId("session-status")).toHaveText("canceled");

  await paidRow.getByRole("link", { name: "booking-paid" }).click();
  await page.waitForURL(new RegExp(`/sessions/${paid.id}$`));
  await expect(page.getByTestId("session-status")).toHaveText("final");
  await expect(page.getByTestId("session-money")).toContainText("$3.50");
  await expect(page.getByTestId("report-row")).toHaveCount(2);
  await expect(page.getByTestId("session-operations")).toContainText("Not started");
  const events = page.getByTestId("event-row");
  await expect(events).toHaveCount(2);
  await expect(events.nth(0)).toContainText("bill.finalized");
  await expect(events.nth(1)).toContainText("created → final");
  await shot(page, "charging-session");
  await context.close();
  expect(base()).toContain("app.chargecloud.test");
});
