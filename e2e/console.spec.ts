import { expect, test } from "@playwright/test";
import { shot } from "./fixtures/people";
import { loopback } from "./fixtures/product";

test("the landing page shows where the API and the OCPP endpoint are", async ({ page }) => {
  await page.goto(process.env.E2E_BASE_URL!);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Charge Cloud");
  await expect(page.getByText(`${process.env.E2E_BASE_URL}/v1`, { exact: true })).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "landing-phone");
});

test("the site has an icon: /favicon.ico and every icon the landing page links to", async ({
  page,
  request,
}) => {
  const base = process.env.E2E_BASE_URL!;
  const favicon = await request.get(`${loopback(base)}/favicon.ico`);
  expect(favicon.status()).toBe(200);
  expect([...(await favicon.body()).subarray(0, 4)]).toEqual([0, 0, 1, 0]); // an ICO file
  await page.goto(base);
  const icons = await page
    .locator('link[rel="icon"]')
    .evaluateAll((links) => links.map((link) => (link as HTMLLinkElement).href));
  expect(icons.some((href) => new URL(href).pathname === "/favicon.ico")).toBe(true);
  for (const href of icons) expect((await request.get(loopback(href))).status(), href).toBe(200);
});
