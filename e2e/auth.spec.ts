import { expect, test } from "@playwright/test";
import {
  anEmail,
  base,
  direct,
  PASSWORD,
  sessionUserId,
  shot,
  signIn,
  signUp,
} from "./fixtures/people";

test("sign up, sign out and sign in again through the built-in OpenID Connect provider", async ({
  page,
}) => {
  const email = anEmail("ada");
  await page.goto(`${base()}/sign-in`);
  await shot(page, "sign-in");
  await signUp(page, "Ada Lovelace", email);
  const userId = await sessionUserId(page);
  expect(userId).toEqual(expect.any(Number));

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/sign-in/);
  expect(await sessionUserId(page)).toBeNull();
  // The provider's own session ended too: signing in asks for the password again.
  await page.getByTestId("sign-in").click();
  await page.waitForURL(/\/interaction\//);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(`${PASSWORD}!`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "Wrong email or password" }),
  ).toBeVisible();
  await shot(page, "sign-in-error");

  await signIn(page, email);
  expect(await sessionUserId(page)).toBe(userId);
});

test("a taken email and a short password are refused on the sign-up form", async ({ page }) => {
  const email = anEmail("taken");
  await signUp(page, "First", email);
  await page.context().clearCookies();
  await page.goto(`${base()}/sign-in`);
  await page.getByTestId("sign-up").click();
  await page.waitForURL(/\/interaction\//);
  await page.getByLabel("Name").fill("Second");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("An account with this email already exists.")).toBeVisible();
  await page.getByLabel("Name").fill("Second");
  await page.getByLabel("Email").fill(anEmail("short"));
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Use at least 10 characters.")).toBeVisible();
  await shot(page, "sign-up-error");
});

test("the console sends signed-out visitors to sign in", async ({ page }) => {
  await page.goto(`${base()}/console`);
  await page.waitForURL(/\/sign-in/);
  await expect(page.getByTestId("sign-in")).toBeVisible();
});

test("the same server under another name sends sign-in to PUBLIC_BASE_URL; other sites are refused", async ({
  page,
}) => {
  // 127.0.0.1 is this very server, but not the address it is configured under.
  await page.goto(`${direct()}/sign-in`);
  await page.getByTestId("sign-up").click();
  await page.waitForURL(`${base()}/sign-in`);
  await signUp(page, "Elsewhere", anEmail("elsewhere"));
  expect(new URL(page.url()).origin).toBe(base());

  const forged = await page.request.post(`${direct()}/sign-in/start`, {
    headers: { origin: "https://attacker.example" },
    form: { screen: "signup" },
    maxRedirects: 0,
  });
  expect(forged.status()).toBe(403);
  expect(forged.headers()["set-cookie"]).toBeUndefined();
});
