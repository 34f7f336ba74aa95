import { expect, test } from "@playwright/test";
import { anOwner, aStation } from "./fixtures/owner";
import { base, shot } from "./fixtures/people";

test("a simulated bill, finalized through the API, read in the console's bills pages", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { v1 } = await anOwner(page, "Bill Owner");
  const station = await aStation(v1, "BILL");
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
  await expect(page.getByTestId("field-errors")).toContainText("Existing Stripe account ID");
  await expect(page.getByTestId("error-state")).not.toContainText("account_ref");

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
