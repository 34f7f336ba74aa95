import fs from "node:fs";
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { aReceiver } from "../testing/webhooks";
import { aStation, anOwner } from "./fixtures/owner";
import { parseCsv } from "./fixtures/csv";
import { accessTokenOf, anEmail, base, direct, shotWhenLoaded, signUp } from "./fixtures/people";

/**
 * Issue 25, items 4 and 5, in the console: names and links between stations, tariffs, sessions,
 * bills and payments, and the settlement owner of a bill; every irreversible or disruptive action
 * (cancel a session, finalize a bill, disable a webhook, revoke a key, remove a member) asks first,
 * naming its effect, and Cancel sends nothing (checked on the server: the row is unchanged);
 * webhooks are re-enabled (and deliver again), edited, and a delivery's body shown and resent (it
 * arrives at a real receiver).
 */

type Json = Record<string, unknown> & { id: string | number };

let owner: BrowserContext;
let page: Page;
let tenantId: number;
let token: string;
let v1: Awaited<ReturnType<typeof anOwner>>["v1"];
let station: { id: number; name: string; connectors: { id: number }[] };
let tariff: Json;
const receiver = aReceiver();

/** Any /v1 call from the test process, answering the status and body (no status expected). */
async function call(method: string, path: string, auth = `Bearer ${token}`) {
  const res = await fetch(`${direct()}/v1${path}`, { method, headers: { authorization: auth } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A moment for anything a click wrongly sent to be done, before checking it was not. */
const settle = (p: Page) => p.waitForTimeout(1_500);

/**
 * "Export CSV" on the list on screen: the file's header is the table's, it has a row per row shown
 * (one page, fewer than 25 rows here) and the named columns' cells are the table's, row by row.
 * Answers the parsed file.
 */
async function exportMatchesTable(p: Page, rowTestId: string, columns: string[]) {
  const [download] = await Promise.all([
    p.waitForEvent("download"),
    p.getByRole("button", { name: "Export CSV" }).click(),
  ]);
  const csv = parseCsv(fs.readFileSync(await download.path(), "utf8").replace(/^\uFEFF/, ""));
  const headers = await p.locator("table thead th").allInnerTexts();
  expect(csv[0]!.map((h) => h.toUpperCase())).toEqual(headers.map((h) => h.toUpperCase()));
  const shown = await p
    .getByTestId(rowTestId)
    .evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent?.trim() ?? "")),
    );
  const body = csv.slice(1);
  expect(shown.length).toBeGreaterThan(0);
  expect(body).toHaveLength(shown.length);
  for (const [i, cells] of shown.entries())
    for (const name of columns) {
      const col = csv[0]!.indexOf(name);
      expect(col, `${name} is a column`).toBeGreaterThanOrEqual(0);
      expect(body[i]![col], `${name} of row ${i}`).toBe(cells[col]);
    }
  // Created is an instant in the file and local time on screen.
  const created = csv[0]!.indexOf("Created");
  for (const row of body) expect(Date.parse(row[created]!)).toBeGreaterThan(0);
  return csv;
}

/** The open confirmation dialog. */
const dialog = (p: Page) => p.getByRole("dialog");

test.describe.serial("names, links and confirmations in the console", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(120_000);
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await owner.newPage();
    const signedUp = await anOwner(page, "Casey Cockpit", "cockpit");
    tenantId = signedUp.tenantId;
    v1 = signedUp.v1;
    token = await accessTokenOf(page);
    const made = await aStation(v1, "E2E-I25B");
    station = { ...made, name: String((await v1("GET", `/stations/${made.id}`)).name) };
    tariff = await v1("POST", "/tariffs", { name: "Evening rate", rate_minor_per_kwh: 35 });
  });

  test.afterAll(async () => {
    await (await receiver).close();
    await owner.close();
  });

  const sessionBody = () => ({
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
    tariff_id: tariff.id,
    source: "simulated",
    processor: "fleet-account",
  });

  test("bills, sessions and payments name and link each other; an external bill names its session", async () => {
    const session = await v1("POST", "/charging-sessions", {
      ...sessionBody(),
      application_reference: "booking-links",
    });
    const billId = String(session.bill_id);
    await page.goto(`${base()}/console/t/${tenantId}/bills`);
    const row = page.getByTestId("bill-row").filter({ hasText: billId });
    // the station by its name, linking to its page
    await expect(row.getByTestId("station-link")).toHaveText(station.name);
    await expect(row.getByTestId("bill-settlement")).toContainText(String(session.id));
    await shotWhenLoaded(page, "i25b-bills");
    await row.getByTestId("station-link").click();
    await page.waitForURL(new RegExp(`/console/t/${tenantId}/stations/${station.id}$`));

    // the bill: its session as the settlement owner, the tariff by name and version
    await page.goto(`${base()}/console/t/${tenantId}/bills/${billId}`);
    await expect(page.getByTestId("bill-settled-by")).toContainText(String(session.id));
    await expect(page.getByTestId("external-settlement")).toContainText(String(session.id));
    await expect(page.getByText("No payment for this bill yet")).toHaveCount(0);
    await expect(page.getByTestId("tariff-link")).toHaveText("Evening rate, version 1");
    await shotWhenLoaded(page, "i25b-bill-external");
    await page.getByTestId("bill-settled-by").getByTestId("session-link").click();
    await page.waitForURL(new RegExp(`/console/t/${tenantId}/sessions/${session.id}$`));

    // the session: station, tariff and bill, each a link to its page
    await expect(page.getByTestId("session-summary").getByTestId("station-link")).toHaveText(
      station.name,
    );
    await shotWhenLoaded(page, "i25b-session");
    await page.getByTestId("session-money").getByTestId("bill-link").click();
    await page.waitForURL(new RegExp(`/console/t/${tenantId}/bills/${billId}$`));
    await page.getByTestId("tariff-link").click();
    await page.waitForURL(new RegExp(`/console/t/${tenantId}/tariffs#tariff-${tariff.id}$`));
    await expect(page.locator(`#tariff-${tariff.id}`)).toContainText("Evening rate");

    // the sessions list names the station and links the bill
    await page.goto(`${base()}/console/t/${tenantId}/sessions`);
    const sessionRow = page.getByTestId("session-row").filter({ hasText: "booking-links" });
    await expect(sessionRow.getByTestId("station-link")).toHaveText(station.name);
    await sessionRow.getByTestId("bill-link").click();
    await page.waitForURL(new RegExp(`/bills/${billId}$`));

    // a managed bill's payment links to the bill's payment, and back from the payments list
    const bill = await v1("POST", "/bills", {
      station_id: station.id,
      connector_id: station.connectors[0]!.id,
      tariff_id: tariff.id,
      source: "simulated",
    });
    await v1("POST", "/payments", {
      bill_id: bill.id,
      service: "simulator",
      return_url: `${base()}/console/t/${tenantId}/bills/${bill.id}`,
    });
    await page.goto(`${base()}/console/t/${tenantId}/payments`);
    const payment = page.getByTestId("payment-row").filter({ hasText: String(bill.id) });
    await expect(payment.getByTestId("bill-link")).toHaveText(String(bill.id));
    await shotWhenLoaded(page, "i25b-payments");
    await payment.getByTestId("payment-link").click();
    await page.waitForURL(new RegExp(`/bills/${bill.id}#payment$`));
    await expect(page.getByTestId("bill-settled-by")).toContainText("payment");
  });

  test("the bills and payments exports download and parse into the rows shown", async () => {
    await page.goto(`${base()}/console/t/${tenantId}/bills`);
    const rows = page.getByTestId("bill-row");
    await expect(rows).toHaveCount(2);
    // every row's station by its name before reading the table (the file names it too)
    await expect(rows.getByTestId("station-link")).toHaveText([station.name, station.name]);
    const bills = await exportMatchesTable(page, "bill-row", [
      "Bill",
      "Status",
      "Source",
      "Station",
      "Amount",
      "Settled by",
    ]);
    expect(bills[0]).toEqual([
      "Bill",
      "Status",
      "Source",
      "Station",
      "Amount",
      "Settled by",
      "Created",
    ]);
    // the external session's bill, one row's cells spelled out
    const external = bills.slice(1).find((r) => r[5]?.startsWith("session "))!;
    expect(external.slice(2, 4)).toEqual(["simulated", station.name]);
    expect(external[4]).toMatch(/^hold \$\d+\.\d{2}$/);

    await page.goto(`${base()}/console/t/${tenantId}/payments`);
    await expect(page.getByTestId("payment-row")).toHaveCount(1);
    const payments = await exportMatchesTable(page, "payment-row", [
      "Payment",
      "Bill",
      "Service",
      "Status",
      "Held",
      "Captured",
      "Refunded",
    ]);
    expect(payments).toHaveLength(2);
    const [payment] = payments.slice(1);
    expect(payment![1]).toBe(bills.slice(1).find((r) => !r[5]?.startsWith("session "))![0]);
    expect(payment![2]).toBe("simulator");
    expect(payment![5]).toBe("$0.00");
  });

  test("cancel session asks first, naming its effect; Cancel leaves it as it was", async () => {
    const session = await v1("POST", "/charging-sessions", {
      ...sessionBody(),
      application_reference: "booking-cancel",
    });
    await page.goto(`${base()}/console/t/${tenantId}/sessions/${session.id}`);
    await page.getByRole("button", { name: "Cancel session" }).click();
    await expect(dialog(page)).toContainText(`bill ${String(session.bill_id)} is canceled`);
    await shotWhenLoaded(page, "i25b-confirm-cancel-session");
    await dialog(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(dialog(page)).toBeHidden();
    await settle(page);
    expect((await v1("GET", `/charging-sessions/${session.id}`)).status).toBe("created");
    expect((await v1("GET", `/bills/${String(session.bill_id)}`)).status).toBe("open");

    await page.getByRole("button", { name: "Cancel session" }).click();
    await dialog(page).getByRole("button", { name: "Cancel session" }).click();
    await expect(page.getByTestId("session-status")).toHaveText("canceled");
    expect((await v1("GET", `/bills/${String(session.bill_id)}`)).status).toBe("canceled");
    // the bill as the API says: canceled, its hold released
    await page.goto(`${base()}/console/t/${tenantId}/bills`);
    await expect(
      page
        .getByTestId("bill-row")
        .filter({ hasText: String(session.bill_id) })
        .getByTestId("bill-amount"),
    ).toHaveText("canceled, hold released");
  });

  test("finalize bill asks first, naming its effect; Cancel leaves it open", async () => {
    const bill = await v1("POST", "/bills", {
      station_id: station.id,
      connector_id: station.connectors[0]!.id,
      tariff_id: tariff.id,
      source: "simulated",
    });
    await page.goto(`${base()}/console/t/${tenantId}/bills/${bill.id}`);
    await page.getByLabel("Energy delivered (kWh)").fill("12.5");
    await page.getByRole("button", { name: "Finalize bill" }).click();
    await expect(dialog(page)).toContainText("can never be changed");
    await expect(dialog(page)).toContainText("12.5 kWh");
    await shotWhenLoaded(page, "i25b-confirm-finalize");
    await dialog(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await settle(page);
    expect((await v1("GET", `/bills/${bill.id}`)).status).toBe("open");
    await page.getByRole("button", { name: "Finalize bill" }).click();
    await dialog(page).getByRole("button", { name: "Finalize bill" }).click();
    await expect(page.getByTestId("bill-status")).toHaveText("final");
    expect((await v1("GET", `/bills/${bill.id}`)).energy_wh).toBe(12_500);
  });

  test("a webhook: disable asks first; enabled again it delivers; edited; a delivery shown and resent", async () => {
    const r = await receiver;
    const webhook = await v1("POST", "/webhooks", {
      url: r.url,
      events: ["webhook.test", "station.connected"],
    });
    const path = `/webhooks/${webhook.id}`;
    await page.goto(`${base()}/console/t/${tenantId}/webhooks`);
    const card = page.getByTestId("webhook-row").filter({ hasText: r.url });
    await card.getByRole("button", { name: "Disable" }).click();
    await expect(dialog(page)).toContainText("receives no more events");
    await dialog(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await settle(page);
    expect((await v1("GET", path)).status).toBe("active");

    await card.getByRole("button", { name: "Disable" }).click();
    await dialog(page).getByRole("button", { name: "Disable endpoint" }).click();
    await expect(card.getByText("disabled", { exact: true })).toBeVisible();
    expect((await v1("GET", path)).status).toBe("disabled");

    // enabled again, it delivers again
    await card.getByRole("button", { name: "Enable again" }).click();
    await expect(card.getByText("active", { exact: true })).toBeVisible();
    const before = r.received.length;
    const sent = await v1("POST", `${path}/test`);
    await expect.poll(() => r.received.length, { timeout: 15_000 }).toBe(before + 1);
    expect(r.received.at(-1)!.headers["service-event-id"]).toBe(sent.event_id);

    // edited: description and a station filter, shown by the station's name
    await card.getByRole("button", { name: "Edit" }).click();
    await card.getByLabel("Description").fill("Fleet backend");
    await card.getByRole("checkbox", { name: station.name }).check();
    await card.getByRole("button", { name: "Save changes" }).click();
    await expect(card.getByTestId("station-link")).toHaveText(station.name);
    expect(await v1("GET", path)).toMatchObject({
      description: "Fleet backend",
      stations: [station.id],
      url: r.url,
    });

    // a delivery: the body it sends and the receiver's answer; resent, it arrives again
    await card.getByRole("button", { name: "Deliveries" }).click();
    const deliveryId = String(sent.delivery_id);
    await card.getByRole("button", { name: `Details of delivery ${deliveryId}` }).click();
    const detail = card.getByTestId("delivery-detail");
    await expect(detail.getByTestId("delivery-body")).toContainText(String(sent.event_id));
    await expect(detail.getByTestId("delivery-answers")).toContainText("HTTP 200");
    await shotWhenLoaded(page, "i25b-webhook-delivery");
    const count = r.received.length;
    await detail.getByRole("button", { name: "Resend" }).click();
    await expect.poll(() => r.received.length, { timeout: 15_000 }).toBe(count + 1);
    expect(r.received.at(-1)!.headers["service-event-id"]).toBe(sent.event_id);
    expect(r.received.at(-1)!.body).toBe(r.received[count - 1]!.body);
    await expect(detail.getByTestId("delivery-answers")).toContainText("Attempt 2");
  });

  test("revoke API key asks first; Cancel leaves the key working", async () => {
    const key = (await v1("POST", "/api-keys", {
      name: "Nightly export",
      scopes: ["stations:read"],
    })) as Json & { secret: string };
    const auth = `Bearer ${key.secret}`;
    await page.goto(`${base()}/console/t/${tenantId}/api-keys`);
    await page.getByRole("button", { name: "Revoke Nightly export" }).click();
    await expect(dialog(page)).toContainText("is refused from now on");
    await dialog(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await settle(page);
    expect((await call("GET", `/tenants/${tenantId}/stations`, auth)).status).toBe(200);
    await page.getByRole("button", { name: "Revoke Nightly export" }).click();
    await dialog(page).getByRole("button", { name: "Revoke key" }).click();
    await expect(dialog(page)).toBeHidden();
    expect((await call("GET", `/tenants/${tenantId}/stations`, auth)).status).toBe(401);
  });

  test("remove member asks first; Cancel keeps them in the team", async ({ browser }) => {
    await page.goto(`${base()}/console/t/${tenantId}/stations`);
    await page.getByRole("link", { name: "Members and invites" }).click();
    await page.waitForURL(/\/console\/teams\/\d+\/members/);
    const teamId = Number(/\/console\/teams\/(\d+)\//.exec(page.url())?.[1]);
    const email = anEmail("member");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Send invitation" }).click();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const member = await context.newPage();
    await signUp(member, "E2E viewer", email);
    await member.getByRole("button", { name: "Accept" }).click();
    await member.waitForURL(new RegExp(`/console/t/${tenantId}/`));
    await context.close();
    const members = async () =>
      ((await call("GET", `/teams/${teamId}/members`)).body.data as { email: string }[]).map(
        (m) => m.email,
      );
    await page.reload();
    await page.getByRole("button", { name: `Remove ${email}` }).click();
    await expect(dialog(page)).toContainText("loses access to every project");
    await shotWhenLoaded(page, "i25b-confirm-remove-member");
    await dialog(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await settle(page);
    expect(await members()).toContain(email);
    await page.getByRole("button", { name: `Remove ${email}` }).click();
    await dialog(page).getByRole("button", { name: "Remove member" }).click();
    await expect(page.getByTestId("member-row").filter({ hasText: email })).toHaveCount(0);
    expect(await members()).not.toContain(email);
  });
});
