import { expect, test } from "@playwright/test";
import { shot } from "./fixtures/people";

test("the landing page shows where the API and the OCPP endpoint are", async ({ page }) => {
  await page.goto(process.env.E2E_BASE_URL!);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Charge Cloud");
  await expect(page.getByText(`${process.env.E2E_BASE_URL}/v1`, { exact: true })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "landing-phone");
});
