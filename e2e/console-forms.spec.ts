import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { anOwner } from "./fixtures/owner";
import { accessTokenOf, anEmail, base, direct, shot } from "./fixtures/people";

/**
 * Issue 25, item 8, in the console: key scope presets with each scope described (the key made
 * holds what was ticked, read back through /v1 with the key itself); role descriptions and the
 * link to send after inviting; the console's own 404 and a missing station said at once; the
 * station form's rules shown before submit, errors beside the fields, the form cleared after a
 * registration and the connection URL with a copy button; many stations registered from a list,
 * each line answered in its place; the quote at a chosen start time (a
 * time-of-day tariff at 18:00) equal to the API's quote at that time, and Simulate equal to the
 * API's simulate. Each changed page held to WCAG 2.1 AA at 1280 and 390 px.
 */

let owner: BrowserContext;
let page: Page;
let tenantId: number;
let token: string;
let v1: Awaited<ReturnType<typeof anOwner>>["v1"];

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** Screenshot and axe at desktop and phone width, once nothing is loading. */
async function bothWidths(p: Page, name: string) {
  await expect(p.getByTestId("loading-state")).toHaveCount(0);
  await shot(p, `i25e-${name}-1280`);
  await p.setViewportSize(PHONE);
  await expect(p.getByTestId("loading-state")).toHaveCount(0);
  await shot(p, `i25e-${name}-390`);
  const width = await p.evaluate(() => document.documentElement.scrollWidth);
  expect(width, `${name} width at 390 px`).toBeLessThanOrEqual(390);
  await p.setViewportSize(DESKTOP);
}

/** Any /v1 call from the test process with a credential, answering status and body. */
async function call(method: string, path: string, credential = token, body?: unknown) {
  const res = await fetch(`${direct()}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${credential}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A wall-clock time in a zone (as a datetime-local field holds it) as an instant. */
function instantOf(wall: string, timeZone: string): string {
  const guess = Date.parse(`${wall}:00Z`);
  const offset = (t: number) => {
    const p = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    }).formatToParts(new Date(t));
    const n = (k: string) => Number(p.find((x) => x.type === k)?.value);
    return Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute")) - t;
  };
  return new Date(guess - offset(guess - offset(guess))).toISOString();
}

test.describe.serial("forms in the console", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(120_000);
    owner = await browser.newContext({ viewport: DESKTOP });
    page = await owner.newPage();
    const signedUp = await anOwner(page, "Frieda Forms", "forms");
    tenantId = signedUp.tenantId;
    v1 = signedUp.v1;
    token = await accessTokenOf(page);
  });

  test.afterAll(async () => {
    await owner.close();
  });

  test("key presets tick their scopes, each described; the key made holds them (read through /v1)", async () => {
    await page.goto(`${base()}/console/t/${tenantId}/api-keys`);
    const box = (scope: string) => page.getByRole("checkbox", { name: scope });
    // each scope described in words beside its box
    await expect(box("stations:control")).toHaveAccessibleDescription(/commands to chargers/);
    await expect(box("settlement:write")).toHaveAccessibleDescription(/pays for itself/);

    const ticked = async () => {
      const out: string[] = [];
      for (const cb of await page.getByRole("checkbox").all()) {
        if (await cb.isChecked()) out.push((await cb.getAttribute("aria-describedby")) ?? "");
      }
      return out.map((id) => id.replace(/^scope-/, "").replace("-", ":")).sort();
    };
    // the role's scopes are read first: every box of an owner is open
    await expect(box("stations:admin")).toBeEnabled();
    await page.getByRole("button", { name: "Full access" }).click();
    await expect.poll(ticked).toHaveLength(10);
    await expect(page.getByRole("button", { name: "Full access" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    await page.getByRole("button", { name: "Read only" }).click();
    await expect.poll(ticked).toEqual(["billing:read", "stations:read", "webhooks:read"]);
    const app = [
      "billing:read",
      "billing:write",
      "settlement:write",
      "stations:control",
      "stations:read",
    ];
    await page.getByRole("button", { name: "Charging app" }).click();
    await expect.poll(ticked).toEqual(app);
    await bothWidths(page, "api-keys");

    await page.getByLabel("Name", { exact: true }).fill("Driver app");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.getByTestId("secret-once").textContent())!.trim();
    await expect(page.getByRole("button", { name: "Copy", exact: true })).toBeVisible();
    // the key itself, through /v1: exactly the preset's scopes on this project
    const access = await call("GET", "/access", secret);
    expect(access.status).toBe(200);
    const tenants = access.body.tenants as { id: number; scopes: string[] }[];
    expect(tenants.map((t) => t.id)).toEqual([tenantId]);
    expect([...tenants[0]!.scopes].sort()).toEqual(app);
  });

  test("roles described where they are picked; after inviting, the link to send", async () => {
    const teams = await call("GET", "/me/teams");
    const teamId = (teams.body.data as { id: number }[])[0]!.id;
    await page.goto(`${base()}/console/teams/${teamId}/members`);
    const role = page.getByLabel("Role", { exact: true });
    await role.selectOption("operator");
    await expect(page.getByText(/operator: Watches everything and sends commands/)).toBeVisible();
    // the members list says what the owner's role may do
    await expect(page.getByTestId("member-row").first()).toContainText("Everything");
    const email = anEmail("invitee");
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send invitation" }).click();
    const link = page.getByTestId("invite-link");
    await expect(link).toContainText(email);
    await expect(link).toContainText("sign in (or sign up) with that email address");
    await expect(page.getByTestId("invite-url")).toHaveText(`${base()}/console/invites`);
    await expect(page.getByRole("button", { name: "Copy link" })).toBeVisible();
    await bothWidths(page, "members");
  });

  test("an unknown console address is the console's 404; a missing station is said at once", async () => {
    const res = await page.goto(`${base()}/console/t/${tenantId}/no-such-page`);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "This page does not exist" })).toBeVisible();
    // inside the console's frame, with a way back
    await expect(page.getByRole("link", { name: "Charge Cloud" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Your projects" })).toBeVisible();
    await bothWidths(page, "console-404");

    const outside = await page.goto(`${base()}/no-such-page`);
    expect(outside?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "This page does not exist" })).toBeVisible();
    await bothWidths(page, "app-404");

    const asked = Date.now();
    await page.goto(`${base()}/console/t/${tenantId}/stations/999999`);
    await expect(page.getByTestId("not-found")).toBeVisible({ timeout: 5_000 });
    expect(Date.now() - asked, "a missing station is said without retrying").toBeLessThan(5_000);
  });

  test("station form: rules before submit, errors beside fields, cleared after a registration, URL to copy", async () => {
    await v1("POST", "/locations", {
      name: "Forms depot",
      address: { street: "1 Main St", city: "Springfield", postal_code: "12345", country: "US" },
      coordinates: { latitude: 40.7128, longitude: -74.006 },
      time_zone: "America/New_York",
    });
    await page.goto(`${base()}/console/t/${tenantId}/stations`);
    await page.getByRole("button", { name: "Register station" }).click();
    const form = page.getByTestId("register-station");
    const password = form.getByLabel("Password (optional)");
    // the rule is on the page before anything is sent
    await expect(password).toHaveAccessibleDescription(/16 to 40 characters/);
    await expect(form.getByText(/16 to 40 characters, printable, no spaces/)).toBeVisible();

    const name = `FORMS-${Date.now().toString(36)}`;
    await form.getByLabel("Name").fill(name);
    await password.fill("too-short");
    await form.getByRole("button", { name: "Register" }).click();
    await expect(form.getByTestId("field-error")).toHaveText(
      "The password has 9 characters; it needs 16 to 40.",
    );
    await expect(password).toHaveAttribute("aria-invalid", "true");
    // what was typed stays, and nothing was registered
    await expect(form.getByLabel("Name")).toHaveValue(name);
    const none = await call("GET", `/tenants/${tenantId}/stations?name=${name}`);
    expect(none.body.data).toEqual([]);

    await password.fill("a-good-password-of-24ch");
    await form.getByRole("button", { name: "Register" }).click();
    await expect(form.getByTestId("registered-station")).toContainText(`Registered ${name}`);
    await expect(form.getByTestId("registered-station")).toContainText("password is stored");
    const made = await call("GET", `/tenants/${tenantId}/stations?name=${name}`);
    const station = (made.body.data as { name: string; connection_url: string }[]).find(
      (s) => s.name === name,
    )!;
    await expect(form.getByTestId("connection-url")).toHaveText(station.connection_url);
    await expect(form.getByRole("button", { name: "Copy URL" })).toBeVisible();
    // cleared: a second press is no "already registered"
    await expect(form.getByLabel("Name")).toHaveValue("");
    await expect(password).toHaveValue("");
    await form.getByRole("button", { name: "Register" }).click();
    await expect(form.getByTestId("field-error")).toHaveText(/^The name: Letters, digits/);
    await expect(form.getByText(/already registered/)).toHaveCount(0);
    await bothWidths(page, "station-form");

    // the same name again: said beside the name, in words, the name kept
    await form.getByLabel("Name").fill(name);
    await form.getByRole("button", { name: "Register" }).click();
    await expect(form.getByTestId("field-error")).toHaveText(
      "A station with this name is already registered; choose another name.",
    );
    await expect(form.getByLabel("Name")).toHaveValue(name);
  });

  test("many stations from a list: each line answered in its place, the refused left to fix", async () => {
    await page.goto(`${base()}/console/t/${tenantId}/stations`);
    await page.getByRole("button", { name: "Register many…" }).click();
    const form = page.getByTestId("register-many");
    const list = form.getByLabel("Stations, one a line");
    await expect(list).toHaveAccessibleDescription(/name, connectors/);
    const tag = Date.now().toString(36).toUpperCase();
    const [a, b, c] = ["A", "B", "C"].map((x) => `FLEET-${tag}-${x}`) as [string, string, string];
    await list.fill(
      [`${a}, 2, fleet-password-000001`, "", "bad name!, 1", `${b}, 3`, `${c}, 1, short`].join(
        "\n",
      ),
    );
    await form.getByRole("button", { name: "Register" }).click();
    const answer = form.getByTestId("registered-many");
    await expect(answer).toContainText("2 registered, 2 refused");
    const lines = form.getByTestId("bulk-line");
    await expect(lines).toHaveCount(4);
    await expect(lines.nth(0)).toHaveText(`Line 1: ${a}`);
    await expect(lines.nth(1)).toContainText("Line 3: bad name! name may contain only letters");
    await expect(lines.nth(2)).toHaveText(`Line 4: ${b}`);
    await expect(lines.nth(3)).toHaveText(`Line 5: ${c} password must be at least 16 characters`);
    // the refused lines are left to fix; the registered ones are gone from the box
    await expect(list).toHaveValue(["bad name!, 1", `${c}, 1, short`].join("\n"));
    await bothWidths(page, "register-many");
    const stations = async () =>
      (
        (await call("GET", `/tenants/${tenantId}/stations?name=FLEET-${tag}`)).body.data as {
          id: number;
          name: string;
          connectors: unknown[];
        }[]
      ).sort((x, y) => x.name.localeCompare(y.name));
    const made = await stations();
    expect(made.map((s) => [s.name, s.connectors.length])).toEqual([
      [a, 2],
      [b, 3],
    ]);

    // fixed, and sent again: only those lines go
    await list.fill(`${c}, 1, a-longer-fleet-password-1`);
    await form.getByRole("button", { name: "Register" }).click();
    await expect(answer).toContainText("1 registered.");
    await expect(list).toHaveValue("");
    expect((await stations()).map((s) => s.name)).toEqual([a, b, c]);
    await lines.first().getByRole("link", { name: c }).click();
    await page.waitForURL(/\/stations\/\d+$/);
    await expect(page.locator("main h1")).toContainText(c);
  });

  test("the quote at a chosen start (18:00 in the tariff's zone) is the API's quote at that time; Simulate is the API's", async () => {
    const tariff = await v1("POST", "/tariffs", {
      name: "Evening peak",
      time_zone: "Europe/London",
      elements: [
        {
          price_components: [{ type: "ENERGY", price: 0.54, step_size: 1 }],
          restrictions: { start_time: "16:00", end_time: "21:00" },
        },
        { price_components: [{ type: "ENERGY", price: 0.36, step_size: 1 }] },
      ],
    });
    await page.goto(`${base()}/console/t/${tenantId}/tariffs`);
    await page.getByRole("button", { name: "Quote" }).click();
    const panel = page.getByTestId("quote-panel");
    const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const apiQuote = async (wall: string) =>
      call("POST", `/tenants/${tenantId}/tariffs/${tariff.id}/quote`, token, {
        energy_wh: 20_000,
        duration_seconds: 3_600,
        start_at: instantOf(wall, "Europe/London"),
      });
    for (const wall of [`${day}T18:00`, `${day}T03:00`]) {
      await panel.getByLabel("Starts at (Europe/London)").fill(wall);
      await panel.getByLabel("Energy (kWh)").fill("20");
      await panel.getByLabel("Duration (minutes)").fill("60");
      await panel.getByRole("button", { name: "Price it" }).click();
      const api = await apiQuote(wall);
      expect(api.status).toBe(200);
      const total = (api.body.total as { excl_vat_minor: number }).excl_vat_minor;
      await expect(panel.getByTestId("quote-total")).toHaveText(`$${(total / 100).toFixed(2)}`);
    }
    // the chosen hour matters: the evening is the peak price, the night is not
    const evening = await apiQuote(`${day}T18:00`);
    const night = await apiQuote(`${day}T03:00`);
    expect((evening.body.total as { excl_vat_minor: number }).excl_vat_minor).toBe(1080);
    expect((night.body.total as { excl_vat_minor: number }).excl_vat_minor).toBe(720);
    await expect(panel.getByTestId("quote-total")).toHaveText("$7.20");

    // a wrong entry is said beside its field, and what was typed stays
    await panel.getByLabel("Energy (kWh)").fill("lots");
    await panel.getByRole("button", { name: "Price it" }).click();
    await expect(panel.getByTestId("field-error")).toHaveText(
      "Energy is a number of kWh from 0 to 10,000.",
    );
    await expect(panel.getByLabel("Energy (kWh)")).toHaveValue("lots");
    await panel.getByLabel("Energy (kWh)").fill("20");

    // Simulate: 17:30 to 18:30 with 10 kWh, as the API's simulate prices it
    await panel.getByLabel("Session start (Europe/London)").fill(`${day}T17:30`);
    await panel.getByLabel("Session end (Europe/London)").fill(`${day}T18:30`);
    await panel.getByLabel("Energy charged (kWh)").fill("10");
    await panel.getByRole("button", { name: "Simulate" }).click();
    const from = instantOf(`${day}T17:30`, "Europe/London");
    const to = instantOf(`${day}T18:30`, "Europe/London");
    const simulated = await call("POST", `/tenants/${tenantId}/tariffs/simulate`, token, {
      tariff_id: tariff.id,
      session: {
        started_at: from,
        stopped_at: to,
        meter_values: [
          { at: from, energy_wh: 0 },
          { at: to, energy_wh: 10_000 },
        ],
      },
    });
    expect(simulated.status).toBe(200);
    const simTotal = (simulated.body.total as { excl_vat_minor: number }).excl_vat_minor;
    expect(simTotal).toBe(540);
    await expect(panel.getByTestId("simulate-total")).toHaveText(`$${(simTotal / 100).toFixed(2)}`);
    await bothWidths(page, "tariff-quote");
  });
});
