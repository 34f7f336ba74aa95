import { expect, test, type Page } from "@playwright/test";
import { anOwner } from "./fixtures/owner";
import { anEmail, base, fitsTheScreen, PASSWORD, shot, signUp } from "./fixtures/people";

/**
 * Issue 25, the leftovers of items 8 and the team pages: a sole owner's Leave disabled with its
 * reason (a second owner leaves; a refusal said beside the action), the team pages keeping the
 * project they were reached from, a refused sign-up keeping what was typed, selects as wide as
 * their longest option, and API refusals said in words without their codes.
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** The team's members page, through the console's navigation. */
async function membersPage(page: Page) {
  await page.getByRole("link", { name: "Members and invites" }).click();
  await page.waitForURL(/\/console\/teams\/\d+\/members/);
  await expect(page.getByTestId("member-row").first()).toBeVisible();
}

/**
 * Every visible select on the page against the width it needs for its longest option (a copy of
 * it laid out without any width rule): none is narrower.
 */
async function selectsFit(page: Page, where: string) {
  const found = await page.evaluate(() =>
    [...document.querySelectorAll("select")]
      .filter((s) => s.getClientRects().length > 0)
      .map((s) => {
        const copy = s.cloneNode(true) as HTMLSelectElement;
        copy.style.cssText =
          "position:absolute;visibility:hidden;left:0;top:0;width:auto;min-width:0;max-width:none";
        document.body.appendChild(copy);
        const needed = copy.getBoundingClientRect().width;
        copy.remove();
        const longest = [...s.options].reduce(
          (a, o) => (o.text.length > a.length ? o.text : a),
          "",
        );
        return {
          label: s.labels?.[0]?.textContent ?? s.id,
          longest,
          width: s.getBoundingClientRect().width,
          needed,
        };
      }),
  );
  expect(found.length, `selects on ${where}`).toBeGreaterThan(0);
  for (const s of found)
    expect(
      s.width,
      `${where}: "${s.label}" is ${s.width} px, "${s.longest}" needs ${s.needed} px`,
    ).toBeGreaterThanOrEqual(s.needed - 0.5);
}

test("a sole owner's Leave is disabled with its reason; a second owner leaves; a refusal is said beside the action", async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  await anOwner(page, "Sole Owner", "sole");
  await membersPage(page);
  const mine = page.getByTestId("member-row");
  await expect(mine).toHaveCount(1);
  const leave = mine.getByRole("button", { name: "Leave the team" });
  await expect(leave).toBeDisabled();
  await expect(mine.getByTestId("remove-reason")).toHaveText(
    "You are the only owner: make another member an owner first.",
  );
  await expect(leave).toHaveAccessibleDescription(
    "You are the only owner: make another member an owner first.",
  );
  await shot(page, "i25y-sole-owner");

  // A second owner, invited and accepting in a browser of their own.
  const second = anEmail("second-owner");
  await page.getByLabel("Email").fill(second);
  await page.getByLabel("Role", { exact: true }).selectOption("owner");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByTestId("invite-link")).toBeVisible();
  const other = await browser.newContext();
  const them = await other.newPage();
  await signUp(them, "Second Owner", second);
  await them.goto(`${base()}/console/invites`);
  await them.getByTestId("invite-row").getByRole("button", { name: "Accept" }).click();
  await them.waitForURL((u) => !u.pathname.startsWith("/console/invites"));
  await them.goto(page.url());
  await expect(them.getByTestId("member-row")).toHaveCount(2);

  // Two owners: both may leave. The first opens the question; meanwhile the second leaves.
  await page.reload();
  await expect(page.getByTestId("member-row")).toHaveCount(2);
  const myRow = page.getByTestId("member-row").filter({ hasText: "Sole Owner" });
  await expect(myRow.getByRole("button", { name: "Leave the team" })).toBeEnabled();
  await expect(myRow.getByTestId("remove-reason")).toHaveCount(0);
  await myRow.getByRole("button", { name: "Leave the team" }).click();
  const question = page.getByRole("dialog");
  await expect(question).toBeVisible();

  const theirRow = them.getByTestId("member-row").filter({ hasText: "Second Owner" });
  await theirRow.getByRole("button", { name: "Leave the team" }).click();
  await them.getByRole("dialog").getByRole("button", { name: "Leave team" }).click();
  await expect(them.getByRole("dialog")).toHaveCount(0);
  await other.close();

  // Now the first is the last owner: the API refuses (409 last_owner), said in words.
  await question.getByRole("button", { name: "Leave team" }).click();
  const refusal = "A team needs at least one owner; make someone else owner first.";
  await expect(question.getByTestId("error-state")).toHaveText(refusal);
  await expect(question.getByTestId("error-state")).toHaveAttribute(
    "data-error-code",
    "last_owner",
  );
  await question.getByRole("button", { name: "Cancel" }).click();
  await expect(myRow.getByTestId("member-error")).toHaveText(refusal);
  expect(await page.locator("main").innerText()).not.toContain("last_owner");

  await page.reload();
  await expect(page.getByTestId("member-row")).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Leave the team" })).toBeDisabled();
});

test("the team pages keep the project they were reached from: its navigation and a link back", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { tenantId } = await anOwner(page, "Context Owner", "context");
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Locations" })
    .click();
  await page.waitForURL(new RegExp(`/console/t/${tenantId}/locations$`));

  await membersPage(page);
  expect(new URL(page.url()).searchParams.get("from")).toBe(String(tenantId));
  const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
  await expect(crumbs).toContainText("Context Owner's fleet");
  await expect(crumbs).toContainText("Members and invites");
  // The project's navigation stays, pointing at the project left.
  const nav = page.getByRole("navigation", { name: "Console" });
  await expect(nav.getByRole("link", { name: "Stations" })).toHaveAttribute(
    "href",
    `/console/t/${tenantId}/stations`,
  );
  await expect(page.getByTestId("project-switcher")).toContainText("Paid charging");
  const back = page.getByTestId("back-to-project");
  await expect(back).toHaveText("← Back to Paid charging");
  await shot(page, "i25y-team-members-context");
  await page.setViewportSize(PHONE);
  await fitsTheScreen(page);
  await shot(page, "i25y-team-members-context-390");
  await page.setViewportSize(DESKTOP);

  // From one team page to the other, the project is still the context.
  await nav.getByRole("link", { name: "Projects" }).click();
  await page.waitForURL(/\/console\/teams\/\d+\/projects\?from=/);
  await expect(crumbs).toContainText("Projects");
  await expect(page.getByTestId("back-to-project")).toHaveText("← Back to Paid charging");
  // Reached without ?from= (typed, bookmarked): the project last visited in this tab.
  const bare = page.url().split("?")[0]!;
  await page.goto(bare);
  await expect(page.getByTestId("back-to-project")).toHaveText("← Back to Paid charging");

  // The way back leads to the page left, with the project's navigation.
  await page.getByTestId("back-to-project").click();
  await page.waitForURL(new RegExp(`/console/t/${tenantId}/locations$`));
  await expect(page.getByRole("heading", { name: "Locations", level: 1 })).toBeVisible();
});

test("a refused sign-up keeps the name and email typed", async ({ page }) => {
  const email = anEmail("kept");
  await signUp(page, "First Person", email);
  await page.context().clearCookies();
  await page.goto(`${base()}/sign-in`);
  await page.getByTestId("sign-up").click();
  await page.waitForURL(/\/interaction\//);
  // Email already taken.
  await page.getByLabel("Name").fill("Grace Hopper");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("An account with this email already exists.")).toBeVisible();
  await expect(page.getByLabel("Name")).toHaveValue("Grace Hopper");
  await expect(page.getByLabel("Email")).toHaveValue(email);
  await expect(page.getByLabel("Password")).toHaveValue("");
  // A short password: what was typed stays again.
  const fresh = anEmail("fresh");
  await page.getByLabel("Email").fill(fresh);
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Use at least 10 characters.")).toBeVisible();
  await expect(page.getByLabel("Name")).toHaveValue("Grace Hopper");
  await expect(page.getByLabel("Email")).toHaveValue(fresh);
  await shot(page, "i25y-sign-up-kept");
});

test("selects are as wide as their longest option, at desktop and phone width", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { tenantId, v1 } = await anOwner(page, "Select Owner", "selects");
  // A name wider than the station form's column at 1280 px, narrower than a phone: a native select
  // cannot wrap, so an option wider than the phone itself is the one case still cut (at its width).
  await v1("POST", "/locations", {
    name: "Harbour car park, north ferry gate A",
    address: { street: "1 Quay", city: "Dover", postal_code: "CT17 9BU", country: "GB" },
    coordinates: { latitude: 51.1279, longitude: 1.3134 },
    time_zone: "Europe/London",
  });
  const pages: [string, string, () => Promise<void>][] = [
    ["api-keys", `/console/t/${tenantId}/api-keys`, () => Promise.resolve()],
    [
      "stations",
      `/console/t/${tenantId}/stations`,
      async () => {
        await page.getByRole("button", { name: "Register station" }).click();
        await expect(page.getByTestId("register-station").getByLabel("Location")).toBeVisible();
      },
    ],
  ];
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    for (const [name, path, open] of pages) {
      await page.goto(`${base()}${path}`);
      await expect(page.getByTestId("loading-state")).toHaveCount(0);
      await open();
      if (name === "api-keys") await expect(page.getByLabel("API version")).toBeVisible();
      await selectsFit(page, `${name} at ${size.width} px`);
      await fitsTheScreen(page);
      await shot(page, `i25y-selects-${name}-${size.width}`);
    }
  }
});

test("an API refusal is said in words, without its code", async ({ page }) => {
  test.setTimeout(120_000);
  await anOwner(page, "Words Owner", "words");
  await membersPage(page);
  const invitee = anEmail("twice");
  for (let i = 0; i < 2; i++) {
    await page.getByLabel("Email").fill(invitee);
    await page.getByRole("button", { name: "Send invitation" }).click();
    if (i === 0) await expect(page.getByTestId("invite-link")).toBeVisible();
  }
  const box = page.getByTestId("error-state");
  await expect(box).toHaveText("An invitation to this email is already pending.");
  await expect(box).toHaveAttribute("data-error-code", "invite_pending");
  // The sole owner stepping down: refused beside the role, in words.
  await page.getByLabel(/^Role of /).selectOption("admin");
  await expect(page.getByTestId("member-error")).toHaveText(
    "A team needs at least one owner; make someone else owner first.",
  );
  const text = await page.locator("main").innerText();
  expect(text).not.toContain("invite_pending");
  expect(text).not.toContain("last_owner");
  expect(text).not.toMatch(/\(\w+_\w+\)/);
  await shot(page, "i25y-refusals-in-words");
});
