import { expect, test, type Page } from "@playwright/test";
import { aCharger } from "../testing/ocpp";
import { aReceiver } from "../testing/webhooks";
import { accessTokenOf, anEmail, base, direct, shot, signUp } from "./fixtures/people";
import { loopback } from "./fixtures/product";

const projectIdOf = (page: Page) => Number(/\/console\/t\/(\d+)\//.exec(page.url())?.[1]);

test("an owner and a viewer work a project through the console, a charger and /v1", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await owner.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base() });
  const page = await owner.newPage();

  // Sign up; a new person has no access, so the console offers to create a project.
  await signUp(page, "Olive Owner", anEmail("owner"));
  await expect(page.getByTestId("onboarding")).toBeVisible();
  await shot(page, "onboarding");
  await page.getByLabel("Team name").fill("Olive's fleet");
  await page.getByLabel("Project name").fill("Depot chargers");
  await page.getByRole("button", { name: "Create project" }).click();
  await page.waitForURL(/\/console\/t\/\d+\/overview/);
  const tenantId = projectIdOf(page);
  // A new project lands on its overview, which starts with the first-run checklist.
  await expect(page.getByTestId("first-run")).toBeVisible();
  await page.getByRole("link", { name: "Stations", exact: true }).click();
  await expect(page.getByTestId("empty-state")).toContainText("No stations yet");
  // The switcher is a list of links: it opens, shows the current project, and Escape closes it.
  const switcher = page.getByTestId("project-switcher");
  await expect(switcher).toContainText("Depot chargers");
  await switcher.click();
  await expect(page.getByRole("link", { name: "Depot chargers" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await page.keyboard.press("Escape");
  await expect(switcher).toHaveAttribute("aria-expanded", "false");
  await expect(switcher).toBeFocused();
  await shot(page, "stations-empty");

  // Invite a viewer, who accepts in a second browser context.
  await page.getByRole("link", { name: "Members and invites" }).click();
  await expect(page.getByTestId("member-row")).toHaveCount(1);
  const viewerEmail = anEmail("viewer");
  await page.getByLabel("Email").fill(viewerEmail);
  await page.getByLabel("Role", { exact: true }).selectOption("viewer");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByTestId("pending-invite-row")).toContainText(viewerEmail);
  await shot(page, "members");

  const viewerContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const viewer = await viewerContext.newPage();
  await signUp(viewer, "Vic Viewer", viewerEmail);
  await expect(viewer.getByTestId("invite-row")).toContainText("Olive's fleet");
  await shot(viewer, "invitations-phone");
  await viewer.getByRole("button", { name: "Accept" }).click();
  await viewer.waitForURL(new RegExp(`/console/t/${tenantId}/overview`));

  await page.reload();
  await expect(page.getByTestId("member-row")).toHaveCount(2);
  await page.getByRole("link", { name: "Projects" }).click();
  await expect(page.getByTestId("project-row")).toContainText("Depot chargers");
  await shot(page, "projects");
  await page.goBack();
  await expect(page.getByTestId("pending-invite-row")).toHaveCount(0);

  // A key, copied from the page and used against /v1.
  await page.goto(`${base()}/console/t/${tenantId}/api-keys`);
  await page.getByLabel("Name").fill("backend");
  for (const scope of ["stations:write", "stations:control"]) await page.getByLabel(scope).check();
  await page.getByLabel("API version").selectOption("2026-10-14");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("secret-once")).toContainText("cpk_live_");
  await page.getByRole("button", { name: "Copy" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  const key = await page.evaluate(() => navigator.clipboard.readText());
  expect(key).toMatch(/^cpk_live_/);
  await shot(page, "api-keys");
  const viaKey = await page.request.get(`${direct()}/v1/tenants/${tenantId}/stations`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(viaKey.status()).toBe(200);
  expect(viaKey.headers()["service-version"]).toBe("2026-10-14");
  await expect(page.getByTestId("api-key-row")).toContainText("backend");
  await expect(page.getByTestId("api-key-row")).toContainText("2026-10-14");
  // Revoking asks once more; then the key is refused on its next request.
  await page.getByRole("button", { name: "Revoke backend" }).click();
  const revoke = page.getByRole("dialog", { name: "Revoke backend?" });
  await revoke.getByRole("button", { name: "Revoke key" }).click();
  await expect(revoke).toBeHidden();
  await expect(page.getByTestId("api-key-row")).toContainText("revoked");
  const revoked = await page.request.get(`${direct()}/v1/tenants/${tenantId}/stations`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(revoked.status()).toBe(401);

  // A location and a station, registered in the console.
  await page.goto(`${base()}/console/t/${tenantId}/locations`);
  await page.getByLabel("Name").fill("North depot");
  await page.getByLabel("Street").fill("1 Volt Way");
  await page.getByLabel("City").fill("Austin");
  await page.getByLabel("Country").selectOption({ label: "United States" });
  await page.getByLabel("Time zone").selectOption("America/Chicago");
  await page.getByLabel("Latitude").fill("30.27");
  await page.getByLabel("Longitude").fill("-97.74");
  await page.getByRole("button", { name: "Create location" }).click();
  await expect(page.getByTestId("location-row")).toContainText("North depot");
  await shot(page, "locations");

  await page.goto(`${base()}/console/t/${tenantId}/stations`);
  await page.getByRole("button", { name: "Register station" }).click();
  const stationName = `E2E-CON-${Date.now().toString(36)}`;
  await page.getByLabel("Name", { exact: true }).fill(stationName);
  await page.getByLabel("Connectors").fill("1");
  await page.getByRole("button", { name: "Register", exact: true }).click();
  await expect(page.getByTestId("registered-station")).toContainText(stationName);
  await expect(page.getByTestId("station-row")).toContainText(stationName);
  await shot(page, "stations");
  await page
    .getByTestId("registered-station")
    .getByRole("link", { name: `Open ${stationName}` })
    .click();
  await page.waitForURL(/\/stations\/\d+$/);
  const stationPath = new URL(page.url()).pathname;
  await expect(page.getByTestId("station-connection")).toHaveText("offline");

  const password = "console-e2e-password-1";
  await page.getByLabel("New password").fill(password);
  await page.getByRole("button", { name: "Set password" }).click();
  await expect(page.getByTestId("credentials-result")).toContainText("stored");

  // A charger connects; the open page follows its connector without a reload.
  const connectionUrl = await page
    .locator("code")
    .filter({ hasText: "/ocpp/" })
    .first()
    .innerText();
  const charger = aCharger({
    url: loopback(connectionUrl.replace(`/${stationName}`, "")),
    identity: stationName,
    password,
    protocol: "ocpp2.0.1",
  });
  charger.handle("RequestStartTransaction", () => Promise.resolve({ status: "Accepted" }));
  await charger.connect();
  try {
    await charger.call("BootNotification", {
      reason: "PowerUp",
      chargingStation: { vendorName: "E2E <b>Vendor</b>", model: "Sim" },
    });
    const status = (connectorStatus: string) =>
      charger.call("StatusNotification", {
        timestamp: new Date().toISOString(),
        connectorStatus,
        evseId: 1,
        connectorId: 1,
      });
    await status("Available");
    await expect(page.getByTestId("station-connection")).toHaveText("online");
    await expect(page.getByTestId("connector-status-1")).toHaveText("Available");
    // Charger-supplied text is shown as text, never as markup.
    await expect(page.getByText("E2E <b>Vendor</b>")).toBeVisible();
    await status("Occupied");
    await expect(page.getByTestId("connector-status-1")).toHaveText("Preparing");

    await page.getByRole("button", { name: "Start charging" }).click();
    await expect(page.getByTestId("operation-status")).toHaveText("succeeded");
    await expect(page.getByTestId("operation-result")).toHaveText("Charger answered Accepted");
    await shot(page, "station-live");

    // The viewer sees the station but cannot command it, on the console and on /v1.
    await viewer.goto(`${base()}${stationPath}`);
    await expect(viewer.getByTestId("connector-status-1")).toHaveText("Preparing");
    await expect(viewer.getByRole("button", { name: "Start charging" })).toBeDisabled();
    await shot(viewer, "station-viewer-phone");
    const stationId = Number(stationPath.split("/").pop());
    // Sent from the viewer's page, with its session cookie.
    const viaConsole = await viewer.evaluate(
      async (input) => {
        const res = await fetch("/api/trpc/v1.sendCommand", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(input),
        });
        return { status: res.status, body: await res.text() };
      },
      {
        params: { tenant_id: tenantId, station_id: stationId },
        body: { action: "reset", mode: "soft" },
        idempotencyKey: "viewer-attempt-0001",
      },
    );
    expect(viaConsole.status).toBe(403);
    expect(viaConsole.body).toContain("insufficient_scope");
    const viewerToken = await accessTokenOf(viewer);
    const viaApi = await viewer.request.post(
      `${direct()}/v1/tenants/${tenantId}/stations/${stationId}/commands`,
      {
        headers: { authorization: `Bearer ${viewerToken}`, "idempotency-key": "viewer-v1-0001" },
        data: { action: "reset", mode: "soft" },
      },
    );
    expect(viaApi.status()).toBe(403);
    expect((await viaApi.json()).error.code).toBe("insufficient_scope");
    const readApi = await viewer.request.get(
      `${direct()}/v1/tenants/${tenantId}/stations/${stationId}`,
      {
        headers: { authorization: `Bearer ${viewerToken}` },
      },
    );
    expect(readApi.status()).toBe(200);
  } finally {
    await charger.close({ force: true });
  }

  // Transactions and the event log.
  await page.goto(`${base()}/console/t/${tenantId}/events`);
  await expect(page.getByTestId("event-row").first()).toBeVisible();
  await page.getByLabel("Types").fill("connector.status_changed");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByTestId("event-row")).toHaveCount(2);
  await shot(page, "events");
  await page.goto(`${base()}/console/t/${tenantId}/transactions`);
  await expect(page.getByRole("heading", { name: "Transactions" })).toBeVisible();
  await shot(page, "transactions");

  // A webhook with its one-time secret, and a test delivery with its attempt.
  const receiver = await aReceiver();
  try {
    await page.goto(`${base()}/console/t/${tenantId}/webhooks`);
    await page.getByLabel("URL").fill(receiver.url);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(page.getByTestId("secret-once")).toContainText("whsec_");
    await page.getByRole("button", { name: "Send test" }).click();
    await expect(page.getByTestId("delivery-status").first()).toHaveText("acknowledged", {
      timeout: 20_000,
    });
    expect(receiver.received.some((r) => r.body.includes("webhook.test"))).toBe(true);
    await shot(page, "webhooks");
  } finally {
    await receiver.close();
  }

  // Tariffs: a simple tariff and its quote.
  await page.goto(`${base()}/console/t/${tenantId}/tariffs`);
  await page.getByRole("button", { name: "New tariff" }).click();
  await page.getByLabel("Name").fill("Standard");
  await page.getByLabel("Price per kWh (cents)").fill("40");
  await page.getByRole("button", { name: "Create tariff" }).click();
  await expect(page.getByTestId("tariff-row")).toContainText("Standard");
  await page.getByRole("button", { name: "Quote" }).click();
  await page.getByLabel("Energy (kWh)").fill("10");
  await page.getByRole("button", { name: "Price it" }).click();
  await expect(page.getByTestId("quote-total")).toHaveText("$4.00");
  // 10 kWh over the default 60 minutes at 40 cents: $4.00, in words and with units.
  await expect(page.getByTestId("quote-summary")).toHaveText(
    "10 kWh over 1 h (1 h charging): $4.00 incl. VAT, $4.00 excl. VAT. Energy $4.00.",
  );
  await expect(page.getByTestId("quote-result")).toContainText("10.000 kWh");
  await shot(page, "tariffs");
  // A complex tariff in the element editor: a bad price is named beside its field, then fixed.
  await page.getByRole("button", { name: "New tariff" }).click();
  await page.getByLabel("Complex (OCPI 2.2.1 elements)").check();
  const firstElement = page.getByTestId("tariff-element").first();
  await firstElement.getByLabel("Price ($/kWh)").fill("-1");
  await page.getByRole("button", { name: "Create tariff" }).click();
  // The refusal in words: the field named as the form names it, no code and no path.
  await expect(page.getByTestId("error-state")).toHaveAttribute(
    "data-error-code",
    "tariff_invalid",
  );
  await expect(page.getByTestId("error-state")).not.toContainText("tariff_invalid");
  await expect(page.getByTestId("field-errors")).toContainText(
    "Element 1, price component 1, price",
  );
  await expect(page.getByTestId("field-errors")).not.toContainText("price_components");
  await expect(firstElement.getByRole("alert").first()).toBeVisible();
  await shot(page, "tariff-invalid");
  await firstElement.getByLabel("Price ($/kWh)").fill("0.45");
  await page.getByRole("button", { name: "Create tariff" }).click();
  await expect(page.getByTestId("tariff-row").filter({ hasText: "complex" })).toHaveCount(1);

  // At phone width (the viewer's context), every project page fits the screen: nothing makes the
  // page scroll sideways (wide tables scroll inside their own box), and the menu opens in the flow.
  for (const section of [
    "stations",
    "locations",
    "transactions",
    "events",
    "webhooks",
    "tariffs",
    "api-keys",
    "settings",
  ]) {
    await viewer.goto(`${base()}/console/t/${tenantId}/${section}`);
    await expect(viewer.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(viewer.getByTestId("loading-state")).toHaveCount(0);
    const overflow = await viewer.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow, `${section} scrolls sideways at phone width`).toBeLessThanOrEqual(0);
    await shot(viewer, `${section}-phone`);
  }
  await viewer.getByRole("button", { name: "Menu" }).click();
  await viewer
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Events" })
    .click();
  await viewer.waitForURL(new RegExp(`/console/t/${tenantId}/events$`));
  await expect(viewer.getByRole("navigation", { name: "Console" })).toBeHidden();

  // The station, without charging history, is deleted after its name is typed.
  await page.goto(`${base()}${stationPath}`);
  const del = page.getByRole("button", { name: "Delete", exact: true });
  await expect(del).toBeDisabled();
  await page.getByLabel("Station name").fill(stationName);
  await del.click();
  await page.waitForURL(new RegExp(`/console/t/${tenantId}/stations$`));
  await expect(page.getByTestId("empty-state")).toContainText("No stations yet");

  await owner.close();
  await viewerContext.close();
});
