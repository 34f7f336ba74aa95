import { expect, test } from "@playwright/test";
import { anOwner, aStation } from "./fixtures/owner";
import { base, shot } from "./fixtures/people";

/**
 * The managed flow in the console with the built-in simulator, in Chromium at the product's
 * public name: a simulated bill made in the console, paid on the simulator's hosted checkout
 * page, finalized, captured for exactly the final amount and refunded, each action confirmed;
 * and the API's refusal of a capture before the bill is final, shown in plain words.
 */
test("a simulated bill paid through the simulator's checkout, captured and refunded in the console", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const { tenantId, v1 } = await anOwner(page, "Pay Operator", "payments");
  await aStation(v1, "PAY");
  await v1("POST", "/tariffs", { rate_minor_per_kwh: 35 });

  // A new bill with a $25 hold, made in the console
  await page.getByRole("link", { name: "Bills", exact: true }).click();
  await page.waitForURL(/\/bills$/);
  await page.getByRole("button", { name: "New bill" }).click();
  await page.getByLabel("Hold (USD, optional)").fill("25");
  await page.getByRole("button", { name: "Create bill" }).click();
  await page.waitForURL(/\/bills\/bill_[0-9A-Za-z]+$/);
  const billUrl = page.url();
  await expect(page.getByTestId("bill-status")).toHaveText("open");

  // Take payment: the simulator (card is not available without a connected Stripe account)
  const take = page.getByTestId("take-payment");
  await expect(take.getByLabel("Payment service")).toHaveValue("simulator");
  await expect(take.getByTestId("service-reasons")).toContainText("card:");
  await shot(page, "bill-take-payment");
  await take.getByRole("button", { name: "Take payment" }).click();
  await expect(page.getByTestId("payment-status")).toHaveText("pending");
  await expect(page.getByTestId("bill-payment")).toContainText("$25.00");
  await shot(page, "bill-payment-pending");

  // The simulator's hosted checkout, then back to the bill
  await page.getByTestId("checkout-link").click();
  await page.waitForURL(new RegExp(`^${base()}/pay/simulator/`));
  await expect(page.getByRole("heading", { name: "Pay Paid charging" })).toBeVisible();
  await expect(page.getByTestId("amount")).toHaveText("$25.00");
  await shot(page, "simulator-checkout");
  // A declined card leaves the checkout open with the reason; then a card that succeeds
  await page.getByRole("button", { name: /^Decline/ }).click();
  await expect(page.getByTestId("checkout-error")).toHaveText("Your card has insufficient funds.");
  expect(page.url()).toMatch(new RegExp(`^${base()}/pay/simulator/`));
  await shot(page, "simulator-checkout-declined");
  await page.getByRole("button", { name: /^Approve/ }).click();
  await page.waitForURL(billUrl);
  await expect(page.getByTestId("payment-status")).toHaveText("authorized");
  await expect(page.getByTestId("why-not-refund")).toHaveText(
    "Refund: The payment is authorized: only a captured payment can be refunded.",
  );
  await expect(page.getByRole("button", { name: "Refund…" })).toBeDisabled();

  // Capture before the bill is final: the API refuses, in plain words
  await expect(page.getByTestId("why-not-capture")).toContainText("The bill is not final yet");
  await page.getByRole("button", { name: "Capture…" }).click();
  const dialog = page.getByRole("dialog", { name: "Capture the final bill?" });
  await expect(dialog.getByTestId("confirm-consequence")).toHaveText(
    "The bill's final amount, once it is fixed, is charged from the $25.00 hold and the rest is released.",
  );
  await dialog.getByRole("button", { name: "Capture now" }).click();
  await expect(dialog.getByTestId("payment-error")).toHaveText(
    "The bill is not final yet: finalize it first, then capture its final amount.(bill_not_final)",
  );
  await shot(page, "payment-capture-refused");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("payment-status")).toHaveText("authorized");

  // Finalize in the console: 12.345 kWh at $0.35 = $4.32
  await page.getByLabel("Energy delivered (kWh)").fill("12.345");
  await page.getByRole("button", { name: "Finalize bill" }).click();
  // finalizing is irreversible: it asks first
  await page
    .getByRole("dialog", { name: "Finalize this bill?" })
    .getByRole("button", { name: "Finalize bill" })
    .click();
  await expect(page.getByTestId("bill-status")).toHaveText("final");
  await expect(page.getByTestId("bill-total")).toHaveText("$4.32");

  // Capture exactly the final amount
  await page.getByRole("button", { name: "Capture…" }).click();
  await expect(dialog.getByTestId("confirm-consequence")).toHaveText(
    "$4.32, the final bill, is charged from the $25.00 hold; the remaining $20.68 is released.",
  );
  await dialog.getByRole("button", { name: "Capture now" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("payment-status")).toHaveText("captured");
  await expect(page.getByTestId("payment-captured")).toHaveText("$4.32");

  // Refund it in full
  await page.getByRole("button", { name: "Refund…" }).click();
  const refund = page.getByRole("dialog", { name: "Refund the payment?" });
  await expect(refund.getByTestId("confirm-consequence")).toContainText(
    "$4.32 is refunded to the payer in full.",
  );
  await refund.getByRole("button", { name: "Refund now" }).click();
  await expect(refund).toBeHidden();
  await expect(page.getByTestId("payment-status")).toHaveText("refunded");
  await expect(page.getByTestId("payment-refunded")).toHaveText("$4.32");
  await expect(page.getByTestId("payment-actions")).toHaveText(
    "The payment is refunded: there is nothing more to capture, release or refund.",
  );

  // The history: the journal's calls and the payment's events, oldest first
  const history = page.getByTestId("payment-history-row");
  await expect(history.filter({ hasText: "Event payment.refunded" })).toHaveCount(1);
  const lines = await history.locator("td:nth-child(2)").allTextContents();
  expect(lines).toEqual([
    "Payment created",
    "Authorization call",
    "Event payment.authorized",
    "Capture call",
    "Event payment.captured",
    "Refund call",
    "Event payment.refunded",
  ]);
  await shot(page, "bill-payment-refunded");

  // The project's payments list, filtered
  await page.getByRole("link", { name: "Payments", exact: true }).click();
  await page.waitForURL(`${base()}/console/t/${tenantId}/payments`);
  await expect(page.getByTestId("payment-row")).toHaveCount(1);
  await expect(page.getByTestId("payment-row")).toContainText("refunded");
  await page.getByLabel("Status").selectOption("captured");
  await expect(page.getByTestId("empty-state")).toBeVisible();
  await page.getByLabel("Status").selectOption("refunded");
  await expect(page.getByTestId("payment-row")).toHaveCount(1);
  await shot(page, "payments");
});
