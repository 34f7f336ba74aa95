import { execFileSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import { anOwner } from "./fixtures/owner";
import { accessTokenOf, base, direct, shot } from "./fixtures/people";
import { loopback } from "./fixtures/product";

/**
 * The console's Sandbox page in Chromium, at the product's public (non-localhost) address: a
 * signed-in owner starts a session on a virtual charger, adds 1 kWh, stops and refunds it (each
 * behind a confirmation), and sees energy, cost, statuses and events change live; the page's curl
 * is the real call; at phone width nothing overflows.
 */
test("a signed-in owner charges, settles and refunds a sandbox session in the console", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base() });
  const page = await context.newPage();
  await anOwner(page, "Sandy Sandbox", "sandbox");

  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Sandbox" })
    .click();
  await page.waitForURL(/\/console\/sandbox$/);
  await expect(page.getByRole("heading", { name: "Sandbox", level: 1 })).toBeVisible();
  const start = page.getByTestId("sandbox-start");
  await expect(start.getByLabel("Station")).toContainText(/sbx-\d+-ac1/);
  await expect(start.getByLabel("Tariff")).toContainText("Sandbox default");
  await expect(start.getByTestId("curl")).toContainText(`${base()}/v1/sessions`);
  await shot(page, "sandbox-start");

  await start.getByRole("button", { name: "Start session" }).click();
  await page.waitForURL(/\/console\/sandbox\?session=sbs_/);
  const sessionId = new URL(page.url()).searchParams.get("session")!;
  const status = page.getByTestId("sandbox-session-status");
  await expect(status).toHaveText("charging", { timeout: 30_000 });
  const energy = page.getByTestId("sandbox-energy");
  const cost = page.getByTestId("sandbox-cost");
  await expect(energy).toHaveText("0.000 kWh");
  await expect(page.getByTestId("sandbox-tariff")).toContainText("0.35");
  const costBefore = await cost.textContent();

  await page.getByRole("button", { name: "+1 kWh" }).click();
  await expect(energy).toHaveText("1.000 kWh", { timeout: 15_000 });
  await expect(cost).not.toHaveText(costBefore!);
  await expect(page.getByTestId("sandbox-power")).toHaveText(/^\d+\.\d{3} kW$/);

  // The read's curl, copied from the page, is the real call (here with the person's own token).
  await page.getByRole("button", { name: "Copy the read curl" }).click();
  const read = await page.evaluate(() => navigator.clipboard.readText());
  expect(read).toBe(`curl -s ${base()}/v1/sessions/${sessionId} -H "Authorization: Bearer $KEY"`);
  const token = await accessTokenOf(page);
  const viaCurl = JSON.parse(
    execFileSync("bash", ["-c", loopback(read)], {
      env: { ...process.env, KEY: token },
    }).toString(),
  ) as { id: string; energy_wh: number; status: string; tenant_id: number };
  expect(viaCurl).toMatchObject({ id: sessionId, energy_wh: 1000, status: "charging" });
  await expect(page.getByTestId("sandbox-controls").getByTestId("curl").first()).toContainText(
    `/v1/sandbox/sessions/${sessionId}/advance`,
  );

  // Stop asks first; cancelling changes nothing.
  await page.getByRole("button", { name: "Stop session…" }).click();
  const dialog = page.getByRole("dialog", { name: "Stop this session?" });
  await expect(dialog).toContainText("cannot be undone");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(status).toHaveText("charging");
  await page.getByRole("button", { name: "Stop session…" }).click();
  await dialog.getByRole("button", { name: "Stop and settle" }).click();
  await expect(status).toHaveText("settled", { timeout: 30_000 });
  const session = await fetch(`${direct()}/v1/sessions/${sessionId}`, {
    headers: { authorization: `Bearer ${token}` },
  }).then((r) => r.json() as Promise<{ bill: { id: string; total_minor: number } }>);
  const total = `$${(session.bill.total_minor / 100).toFixed(2)}`;
  expect(session.bill.total_minor).toBeGreaterThan(0);
  await expect(cost).toHaveText(total);
  await expect(page.getByTestId("sandbox-payment")).toContainText(`captured ${total}`);

  await page.getByRole("button", { name: "Refund…" }).click();
  const refund = page.getByRole("dialog", { name: "Refund this session?" });
  await expect(refund).toContainText(total);
  await refund.getByRole("button", { name: "Refund in full" }).click();
  await expect(status).toHaveText("refunded", { timeout: 30_000 });
  await expect(page.getByTestId("sandbox-payment")).toContainText(`refunded ${total}`);

  // The events, live: the session's whole life, its bill's and its payment's.
  const events = page.getByTestId("sandbox-events");
  for (const step of [
    "starting → charging",
    "charging → stopping",
    "stopping → settled",
    "settled → refunded",
  ])
    await expect(events).toContainText(step, { timeout: 10_000 });
  for (const type of ["bill.finalized", "payment.captured", "payment.refunded", "meter.sampled"])
    await expect(events).toContainText(type);
  await expect(page.getByTestId("sandbox-session-row").first()).toContainText(sessionId);
  await shot(page, "sandbox-refunded");

  // At phone width the page fits the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(status).toHaveText("refunded");
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await shot(page, "sandbox-phone");

  // Each id is a link to its own page: the bill, and the station (the sandbox's, by name).
  await page
    .getByTestId("sandbox-session")
    .getByRole("link", { name: new RegExp(`^${session.bill.id}`) })
    .click();
  await page.waitForURL(new RegExp(`/bills/${session.bill.id}$`));
  await expect(page.getByTestId("bill-status")).toHaveText("final");
  await page.goBack();
  await page
    .getByTestId("sandbox-session")
    .getByRole("link", { name: /^sbx-\d+-ac1$/ })
    .click();
  await page.waitForURL(/\/stations\/\d+$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(/sbx-\d+-ac1/);
});
