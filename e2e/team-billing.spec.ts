import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { anOwner } from "./fixtures/owner";
import {
  accessTokenOf,
  anEmail,
  base,
  direct,
  fitsTheScreen,
  shotWhenLoaded,
  signUp,
} from "./fixtures/people";

/**
 * Issue 26, point 5: a team's Billing page in Chromium at the suite's public address, against the
 * product's team billing on the Stripe fake (fixtures/global-setup.ts): Stripe's hosted pages are
 * the fake's, and the fake delivers the platform's invoice events to the product's signed webhook.
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const stripeUrl = () => process.env.E2E_STRIPE_URL!;
const secretKey = () =>
  (JSON.parse(process.env.E2E_ENV!) as Record<string, string>).STRIPE_SECRET_KEY!;

/** An owner with a team and project, on the team's Billing page; answers the ids and a token. */
async function anOwnerOnBilling(page: Page, name: string) {
  const { tenantId } = await anOwner(page, name, "team-billing");
  const link = page.getByRole("navigation", { name: "Console" }).getByRole("link", {
    name: "Billing",
    exact: true,
  });
  const href = (await link.getAttribute("href"))!;
  const teamId = Number(/\/teams\/(\d+)\/billing/.exec(href)?.[1]);
  await link.click();
  await page.waitForURL(/\/console\/teams\/\d+\/billing/);
  await expect(page.getByTestId("billing-status")).toHaveText("active");
  const token = await accessTokenOf(page);
  return { tenantId, teamId, token };
}

/** /v1 as the given person (an access token). */
async function v1(token: string, method: string, route: string, body?: unknown) {
  const res = await fetch(`${direct()}/v1${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "idempotency-key": `e2e-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** One of the fake's test controls (testing/stripe-fake-billing-pages.ts). */
async function fakeControl(route: string, form: Record<string, string | number> = {}) {
  const res = await fetch(`${stripeUrl()}/_fake/billing/${route}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${secretKey()}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams(Object.entries(form).map(([k, v]) => [k, String(v)])).toString(),
  });
  const json = (await res.json()) as { id?: string; error?: string };
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.id!;
}

/** A person invited to the team with `role`, signed up and accepted in a browser of their own. */
async function aMemberIn(browser: Browser, ownerToken: string, teamId: number, role: string) {
  const email = anEmail(role);
  const invited = await v1(ownerToken, "POST", `/teams/${teamId}/invites`, { email, role });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, `A ${role}`, email);
  await page.goto(`${base()}/console/invites`);
  await page.getByTestId("invite-row").getByRole("button", { name: "Accept" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/console/invites"));
  return { page, context, email };
}

/** Platform staff: a person made `platform-admin` with the product's admin command. */
async function aPlatformAdmin(browser: Browser) {
  const email = anEmail("staff");
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUp(page, "Platform Staff", email);
  const env = { ...process.env, ...(JSON.parse(process.env.E2E_ENV!) as Record<string, string>) };
  delete env.NODE_OPTIONS;
  delete env.DATABASE_URL;
  const res = spawnSync(
    "npm",
    ["run", "--silent", "admin", "--", "set-platform-role", "--email", email, "platform-admin"],
    { cwd: path.resolve(import.meta.dirname, ".."), env, encoding: "utf8" },
  );
  expect(res.status, res.stderr).toBe(0);
  const token = await accessTokenOf(page);
  await context.close();
  return token;
}

test("an owner puts a card on file through Stripe's page; a declined card is said in words; removing asks first; a bank account waits for microdeposits or is saved", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const { teamId, token } = await anOwnerOnBilling(page, "Card Owner");
  await expect(page.getByTestId("plan-words")).toContainText(
    "the first 5 active chargers every month are free; each one beyond costs $8.00 a month",
  );
  await expect(page.getByTestId("project-limit-words")).toContainText(
    "This team has no billing method on file, so it may have up to 2.",
  );
  await expect(page.getByTestId("card-on-file")).toHaveText("No card on file.");
  await expect(page.getByTestId("usage-active-chargers")).toHaveText("0");
  await expect(page.getByTestId("usage-api-requests")).toHaveText(/^\d+ \(shown, not priced\)$/);
  await expect(page.getByTestId("usage-chart")).toBeVisible();
  await expect(page.getByTestId("billing-invoices")).toContainText("No invoices yet");
  await shotWhenLoaded(page, "team-billing-empty");

  // A declined card: Stripe's page says so; back on the console, /sync says it in words
  await page.getByRole("button", { name: "Set up card…" }).click();
  await page.waitForURL(new RegExp(`^${stripeUrl()}/c/setup/cs_test_`));
  await page.getByRole("button", { name: /declined/ }).click();
  await expect(page.getByRole("alert")).toHaveText("Your card has insufficient funds.");
  await page.getByRole("link", { name: "Back" }).click();
  await page.waitForURL(`${base()}/console/teams/${teamId}/billing?setup=card&result=canceled`);
  await expect(page.getByTestId("setup-outcome")).toHaveText(
    "The card was declined: Your card has insufficient funds. Nothing was saved; try again with another card.",
  );
  await expect(page.getByTestId("card-on-file")).toHaveText("No card on file.");

  // A card saved: on file once /sync read it back
  await page.getByRole("button", { name: "Set up card…" }).click();
  await page.waitForURL(new RegExp(`^${stripeUrl()}/c/setup/cs_test_`));
  await page.getByRole("button", { name: "Save card" }).click();
  await page.waitForURL(`${base()}/console/teams/${teamId}/billing?setup=card&result=done`);
  await expect(page.getByTestId("setup-outcome")).toHaveAttribute("data-status", "saved");
  await expect(page.getByTestId("setup-outcome")).toContainText(
    "Saved: the card Visa ending 4242, expires 12/2030 is on file",
  );
  await expect(page.getByTestId("card-on-file")).toHaveText(
    "Visa ending 4242, expires 12/2030 (pays the invoices)",
  );
  await expect(page.getByTestId("project-limit-words")).toContainText(
    "This team may have up to 20.",
  );
  await shotWhenLoaded(page, "team-billing-card");
  await page.setViewportSize(PHONE);
  await fitsTheScreen(page);
  await shotWhenLoaded(page, "team-billing-card-390");
  await page.setViewportSize(DESKTOP);

  // Removing asks first; Cancel removes nothing
  await page.getByRole("button", { name: "Remove card…" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("Visa ending 4242, expires 12/2030 is taken off file");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  const kept = await v1(token, "GET", `/teams/${teamId}/billing`);
  expect(kept.body.card).toMatchObject({ last4: "4242" });
  await expect(page.getByTestId("card-on-file")).toContainText("Visa ending 4242");

  await page.getByRole("button", { name: "Remove card…" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Remove card" }).click();
  await expect(page.getByTestId("card-on-file")).toHaveText("No card on file.");
  expect((await v1(token, "GET", `/teams/${teamId}/billing`)).body.card).toBeNull();

  // A US bank account: one left to microdeposits is not on file yet; one verified at once is
  await page.getByRole("button", { name: "Set up bank account…" }).click();
  await page.waitForURL(new RegExp(`^${stripeUrl()}/c/setup/cs_test_`));
  await page.getByRole("button", { name: "Link bank account by microdeposits" }).click();
  await page.waitForURL(`${base()}/console/teams/${teamId}/billing?setup=bank_account&result=done`);
  await expect(page.getByTestId("setup-outcome")).toHaveText(
    "The bank account waits for verification by two small deposits (microdeposits): Stripe emails how to confirm them. It is not on file until it is verified.",
  );
  await expect(page.getByTestId("bank_account-on-file")).toHaveText("No bank account on file.");
  await page.getByRole("button", { name: "Set up bank account…" }).click();
  await page.waitForURL(new RegExp(`^${stripeUrl()}/c/setup/cs_test_`));
  await page.getByRole("button", { name: "Link bank account (verified instantly)" }).click();
  await page.waitForURL(`${base()}/console/teams/${teamId}/billing?setup=bank_account&result=done`);
  await expect(page.getByTestId("setup-outcome")).toContainText(
    "Saved: the bank account STRIPE TEST BANK, checking account ending 6789 is on file",
  );
  await expect(page.getByTestId("bank_account-on-file")).toHaveText(
    "STRIPE TEST BANK, checking account ending 6789 (pays the invoices)",
  );
});

test("an invoice unpaid past the grace period suspends the team: the banner says what to do, a new project is refused in words, paying lifts it", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const { tenantId, teamId } = await anOwnerOnBilling(page, "Late Payer");
  // Staff switch the team to invoices sent to pay by a due date (a Subscription at Stripe)
  const staff = await aPlatformAdmin(browser);
  const switched = await v1(staff, "PATCH", `/admin/billing-teams/${teamId}/invoicing`, {
    mode: "send_invoice",
  });
  expect(switched.status, JSON.stringify(switched.body)).toBe(200);
  // Stripe's clock: an invoice whose due date passed 15 days ago (the grace period is 14)
  const invoice = await fakeControl("invoices", {
    team_id: teamId,
    amount: 2400,
    due_in_days: -15,
  });

  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("billing-status")).toHaveText("suspended", { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  const banner = page.getByTestId("billing-banner");
  await expect(banner).toContainText("This team's billing is suspended");
  await expect(banner).toContainText("New projects and stations are refused");
  await expect(banner).toContainText(
    "To lift it, pay the open invoice (its “Pay or view” link) or put a working card or bank account on file.",
  );
  await expect(banner).not.toContainText("/billing/invoices");
  const row = page.locator(`[data-invoice="${invoice}"]`);
  await expect(row.getByTestId("invoice-status")).toHaveText("open (to pay)");
  await expect(row.getByTestId("invoice-amount")).toHaveText("$24.00");
  await expect(row).toContainText("overdue since");
  await shotWhenLoaded(page, "team-billing-suspended");
  await page.setViewportSize(PHONE);
  await fitsTheScreen(page);
  await shotWhenLoaded(page, "team-billing-suspended-390");
  await page.setViewportSize(DESKTOP);

  // The project's pages say it too, with the way to Billing
  await page.goto(`${base()}/console/t/${tenantId}/overview`);
  await expect(page.getByTestId("billing-banner")).toContainText(
    "This team's billing is suspended",
  );
  await expect(
    page.getByTestId("billing-banner").getByRole("link", { name: "Go to the team's Billing page" }),
  ).toHaveAttribute("href", new RegExp(`/console/teams/${teamId}/billing`));

  // Creating a project: the API's 402, said in words with the way to pay
  await page.goto(`${base()}/console/teams/${teamId}/projects`);
  await page.getByLabel("Name").fill("One more");
  await page.getByRole("button", { name: "Create project" }).click();
  const refusal = page.getByTestId("error-state");
  await expect(refusal).toHaveAttribute("data-error-code", "billing_suspended");
  await expect(refusal).toContainText(
    "Refused: this team's billing is suspended, because an invoice is unpaid past its grace period.",
  );
  await expect(refusal).not.toContainText("/v1/");
  await shotWhenLoaded(page, "team-billing-refused-project");

  // Paying the invoice on Stripe's hosted page lifts it (the fake delivers invoice.paid)
  await page.goto(`${base()}/console/teams/${teamId}/billing`);
  await page.locator(`[data-invoice="${invoice}"]`).getByTestId("invoice-link").click();
  await page.waitForURL(`${stripeUrl()}/i/${invoice}`);
  await page.getByRole("button", { name: "Pay this invoice" }).click();
  await expect(page.locator("[data-status]")).toHaveText("paid");
  await page.goto(`${base()}/console/teams/${teamId}/billing`);
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("billing-status")).toHaveText("active", { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("billing-banner")).toHaveCount(0);
  await expect(
    page.locator(`[data-invoice="${invoice}"]`).getByTestId("invoice-status"),
  ).toHaveText("paid");
  await page.goto(`${base()}/console/teams/${teamId}/projects`);
  await page.getByLabel("Name").fill("One more");
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByTestId("project-row").filter({ hasText: "One more" })).toBeVisible();
});

test("a billing member sees only Billing and manages the card; an admin reads it and cannot manage", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const { tenantId, teamId, token } = await anOwnerOnBilling(page, "Team With Billing");

  const billing = await aMemberIn(browser, token, teamId, "billing");
  const them = billing.page;
  // Signed in, the console leads them to the team's Billing page
  await them.goto(`${base()}/console`);
  await them.waitForURL(`${base()}/console/teams/${teamId}/billing`);
  await expect(them.getByTestId("billing-status")).toHaveText("active");
  const nav = them.getByRole("navigation", { name: "Console" });
  await expect(nav.getByRole("link", { name: "Billing", exact: true })).toBeVisible();
  for (const absent of ["Overview", "Stations", "Bills", "Projects", "Members and invites"])
    await expect(nav.getByRole("link", { name: absent, exact: true })).toHaveCount(0);
  await expect(them.getByTestId("project-switcher")).toHaveCount(0);
  await expect(them.getByRole("button", { name: "Set up card…" })).toBeEnabled();
  await expect(them.getByTestId("methods-denied")).toHaveCount(0);
  // No project data: a project's page typed in is refused
  await them.goto(`${base()}/console/t/${tenantId}/stations`);
  await expect(them.getByTestId("station-row")).toHaveCount(0);
  await expect(them.getByTestId("error-state").or(them.getByTestId("not-found"))).toBeVisible();
  await them.goto(`${base()}/console/teams/${teamId}/billing`);
  // no way "back" to a project they cannot read, though they typed one in before
  await expect(them.getByTestId("billing-status")).toHaveText("active");
  await expect(them.getByTestId("back-to-project")).toHaveCount(0);
  await shotWhenLoaded(them, "team-billing-billing-member");

  // They put a card on file
  await them.getByRole("button", { name: "Set up card…" }).click();
  await them.waitForURL(new RegExp(`^${stripeUrl()}/c/setup/cs_test_`));
  await them.getByRole("button", { name: "Save card" }).click();
  await them.waitForURL(`${base()}/console/teams/${teamId}/billing?setup=card&result=done`);
  await expect(them.getByTestId("card-on-file")).toContainText("Visa ending 4242");
  await billing.context.close();

  // An admin sees it, and the buttons say why they are not theirs
  const admin = await aMemberIn(browser, token, teamId, "admin");
  await admin.page.goto(`${base()}/console/teams/${teamId}/billing`);
  await expect(admin.page.getByTestId("card-on-file")).toContainText("Visa ending 4242");
  const reason = "Only the team's owners and billing members manage its card and bank account.";
  await expect(admin.page.getByTestId("methods-denied")).toHaveText(reason);
  await expect(admin.page.getByRole("button", { name: "Replace card…" })).toBeDisabled();
  await expect(admin.page.getByRole("button", { name: "Remove card…" })).toBeDisabled();
  await expect(admin.page.getByRole("button", { name: "Set up bank account…" })).toBeDisabled();
  await expect(
    admin.page.getByRole("button", { name: "Remove card…" }),
  ).toHaveAccessibleDescription(reason);
  await shotWhenLoaded(admin.page, "team-billing-admin");
  await admin.context.close();
});
