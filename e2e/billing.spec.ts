import { expect, test, type Page } from "@playwright/test";
import { accessTokenOf, anEmail, base, direct, shot, signUp } from "./fixtures/people";

/** A person with their own project, signed in on `page`; answers the project and a /v1 caller. */
async function anOwner(page: Page, name: string) {
  await signUp(page, name, anEmail("billing"));
  await page.getByLabel("Team name").fill(`${name}'s fleet`);
  await page.getByLabel("Project name").fill("Paid charging");
  await page.getByRole("button", { name: "Create project" }).click();
  await page.waitForURL(/\/console\/t\/\d+\/stations/);
  const tenantId = Number(/\/console\/t\/(\d+)\//.exec(page.url())?.[1]);
  const token = await accessTokenOf(page);
  const v1 = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${direct()}/v1/tenants/${tenantId}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "idempotency-key": `e2e-${Date.now()}-${Math.random().toString(36).slice(2)}`,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Record<string, unknown> & { id: string | number };
    expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
    return json;
  };
  return { tenantId, v1 };
}

test("a simulated bill, finalized through the API, read in the console's bills pages", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { v1 } = await anOwner(page, "Bill Owner");
  const location = await v1("POST", "/locations", {
    name: "Depot",
    address: { street: "1 Main St", city: "Springfield", postal_code: "12345", country: "US" },
    coordinates: { latitude: 40.7128, longitude: -74.006 },
    time_zone: "America/New_York",
  });
  const station = (await v1("POST", "/stations", {
    name: `BILL-${Date.now().toString(36)}`,
    location_id: location.id,
    connector_count: 1,
  })) as { id: number; connectors: { id: number }[] };
  const tariff = await v1("POST", "/tariffs", { rate_minor_per_kwh: 35 });
  const bill = await v1("POST", "/bills", {
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
    tariff_id: tariff.id,
    source: "simulated",
  });
  const open = await v1("POST", "/bills", {
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
    tariff_id: tariff.id,
    source: "simulated",
    hold_minor: 2500,
  });
  await v1("POST", `/bills/${bill.id}/finalize`, { energy_wh: 12_345 });

  await page.getByRole("link", { name: "Bills" }).click();
  await page.waitForURL(/\/bills$/);
  await expect(page.getByTestId("bill-row")).toHaveCount(2);
  await expect(page.getByTestId("bill-row").filter({ hasText: String(open.id) })).toContainText(
    "hold $25.00",
  );
  await page.getByLabel("Status").selectOption("final");
  await expect(page.getByTestId("bill-row")).toHaveCount(1);
  await expect(page.getByTestId("bill-amount")).toHaveText("$4.32");
  await shot(page, "bills");

  await page.getByRole("link", { name: String(bill.id) }).click();
  await page.waitForURL(new RegExp(`/bills/${bill.id}$`));
  await expect(page.getByTestId("bill-status")).toHaveText("final");
  await expect(page.getByTestId("price-summary")).toHaveText(
    "12.345 kWh over 1 h (1 h charging): $4.32 incl. VAT, $4.32 excl. VAT. Energy $4.32.",
  );
  await expect(page.getByTestId("bill-cost")).toContainText("Energy delivered12.345 kWh");
  await expect(page.getByTestId("bill-cost")).toContainText("Priced total incl. VAT$4.32");
  await expect(page.getByTestId("bill-total")).toHaveText("$4.32");
  await expect(page.getByTestId("bill-payment")).toContainText("No payment for this bill yet.");
  await shot(page, "bill");
});

test("an owner connects the project's Stripe account through onboarding, then disconnects it", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { tenantId } = await anOwner(page, "Pay Owner");
  await page.getByRole("link", { name: "Payment account" }).click();
  await page.waitForURL(/\/payment-account$/);
  await expect(page.getByTestId("payment-account-status")).toHaveText("not_connected");
  await shot(page, "payment-account-empty");

  // Linking an account Stripe does not know is refused with the API's message
  await page.getByLabel("Existing Stripe account ID (optional)").fill("acct_nosuchaccount");
  await page.getByRole("button", { name: "Connect with Stripe" }).click();
  await expect(page.getByTestId("field-errors")).toContainText("account_ref");

  await page.getByLabel("Existing Stripe account ID (optional)").fill("");
  await page.getByRole("button", { name: "Connect with Stripe" }).click();
  // Stripe's hosted onboarding (the fake's, on loopback), then back to the console
  await page.waitForURL(new RegExp(`^${process.env.E2E_STRIPE_URL}/setup/s/acct_`));
  await page.getByRole("button", { name: "Finish onboarding" }).click();
  await page.waitForURL(`${base()}/console/t/${tenantId}/payment-account?onboarding=return`);
  await expect(page.getByTestId("onboarding-back")).toContainText("Back from Stripe");
  await expect(page.getByTestId("payment-account-status")).toHaveText("active");
  await expect(page.getByTestId("charges-enabled")).toHaveText("yes");
  await expect(page.getByTestId("requirements-due")).toHaveText("none");
  await shot(page, "payment-account-active");

  await page.getByRole("button", { name: "Disconnect…" }).click();
  await page.getByRole("button", { name: "Disconnect now" }).click();
  await expect(page.getByTestId("payment-account-status")).toHaveText("disconnected");
  await expect(page.getByTestId("charges-enabled")).toHaveText("no");
});
