import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { aReceiver } from "../testing/webhooks";
import { csvMatchesShown, exportCsv, shownRows } from "./fixtures/csv";
import { aStation, anOwner } from "./fixtures/owner";
import { anEmail, base, shot, signUp } from "./fixtures/people";

/**
 * Issue 25, item 2, the lists that lacked it: the tariffs, API keys, a webhook's deliveries and a
 * team's members each export what they show as CSV, every row as the table shows it (names, not
 * ids) and never a secret (a key's, a webhook's signing secret). And the bills list's station
 * filter picks a station by its name (no id to type, nothing silently ignored): the list narrows
 * to it, and so does its export.
 */

let owner: BrowserContext;
let page: Page;
let tenantId: number;
let v1: Awaited<ReturnType<typeof anOwner>>["v1"];
const stations: { id: number; name: string; connector: number }[] = [];
const secrets: string[] = [];
let teamId: number;
let webhookId: string;
const receiver = aReceiver();

/** Every cell of the file, as one text: to say what it does not hold. */
const allText = (csv: string[][]) => csv.map((r) => r.join("\u0001")).join("\n");

test.describe
  .serial("CSV exports of tariffs, keys, deliveries and members; bills by station", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(120_000);
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await owner.newPage();
    const signedUp = await anOwner(page, "Erin Export", "exports");
    tenantId = signedUp.tenantId;
    v1 = signedUp.v1;
    for (const prefix of ["E2E-EXP-NORTH", "E2E-EXP-SOUTH"]) {
      const made = await aStation(v1, prefix);
      const read = await v1("GET", `/stations/${made.id}`);
      stations.push({ id: made.id, name: String(read.name), connector: made.connectors[0]!.id });
    }
    const day = await v1("POST", "/tariffs", { name: "Day rate", rate_minor_per_kwh: 35 });
    await v1("POST", "/tariffs", { name: 'Night, "cheap"', rate_minor_per_kwh: 20 });
    // two bills at the first station, one at the second
    for (const s of [stations[0]!, stations[0]!, stations[1]!])
      await v1("POST", "/bills", {
        station_id: s.id,
        connector_id: s.connector,
        tariff_id: day.id,
        source: "simulated",
      });
    // two keys, one revoked; their secrets must never reach a file
    for (const name of ["Nightly, export", "Fleet app"]) {
      const key = await v1("POST", "/api-keys", { name, scopes: ["stations:read"] });
      secrets.push(String(key.secret));
      if (name === "Fleet app") await v1("DELETE", `/api-keys/${key.id}`);
    }
    // a webhook with two deliveries, acknowledged by a real receiver
    const r = await receiver;
    const webhook = await v1("POST", "/webhooks", { url: r.url, events: ["webhook.test"] });
    webhookId = String(webhook.id);
    secrets.push(String(webhook.secret));
    await v1("POST", `/webhooks/${webhookId}/test`);
    await v1("POST", `/webhooks/${webhookId}/test`);
    await expect.poll(() => r.received.length, { timeout: 15_000 }).toBe(2);
  });

  test.afterAll(async () => {
    await (await receiver).close();
    await owner.close();
  });

  test("the tariffs export is the rows shown", async () => {
    await page.goto(`${base()}/console/t/${tenantId}/tariffs`);
    await expect(page.getByTestId("tariff-row")).toHaveCount(2);
    const csv = await exportCsv(page);
    expect(csv[0]).toEqual(["Name", "Kind", "Summary", "Version", "Updated"]);
    const records = await csvMatchesShown(
      page,
      csv,
      await shownRows(page, "tariff-row"),
      ["Name", "Kind", "Summary", "Version"],
      ["Updated"],
    );
    // a name with a comma and quotes comes back whole
    expect(records.map((r) => r.Name).sort()).toEqual(["Day rate", 'Night, "cheap"']);
    await shot(page, "i25x-tariffs");
  });

  test("the API keys export is the rows shown, without any secret", async () => {
    await page.goto(`${base()}/console/t/${tenantId}/api-keys`);
    await expect(page.getByTestId("api-key-row")).toHaveCount(2);
    const csv = await exportCsv(page);
    expect(csv[0]).toEqual(["Key", "Prefix", "Scopes", "Owner", "Version", "Created", "Revoked"]);
    const records = await csvMatchesShown(
      page,
      csv,
      await shownRows(page, "api-key-row"),
      ["Key", "Prefix", "Scopes", "Owner", "Version"],
      ["Created"],
    );
    const revoked = records.find((r) => r.Key === "Fleet app")!;
    expect(Date.parse(revoked.Revoked!)).toBeGreaterThan(0);
    expect(records.find((r) => r.Key === "Nightly, export")!.Revoked).toBe("");
    for (const secret of secrets) expect(allText(csv)).not.toContain(secret);
    // the prefix is the start of the key's secret, not the secret
    expect(
      secrets[0]!.startsWith(
        records.find((r) => r.Key === "Nightly, export")!.Prefix!.slice(0, -1),
      ),
    ).toBe(true);
    await shot(page, "i25x-api-keys");
  });

  test("a webhook's deliveries export is the rows shown, without the signing secret", async () => {
    await page.goto(`${base()}/console/t/${tenantId}/webhooks`);
    const card = page.getByTestId("webhook-row").first();
    await card.getByRole("button", { name: "Deliveries" }).click();
    const rows = card.getByTestId("delivery-row");
    await expect(rows).toHaveCount(2);
    await expect(rows.getByTestId("delivery-status")).toHaveText(["acknowledged", "acknowledged"]);
    const csv = await exportCsv(page, card);
    expect(csv[0]!.slice(0, 6)).toEqual([
      "Event",
      "Status",
      "Attempts",
      "Last HTTP",
      "Next retry",
      "Created",
    ]);
    const records = await csvMatchesShown(
      page,
      csv,
      await shownRows(card, "delivery-row"),
      ["Event", "Status", "Last HTTP"],
      ["Created"],
    );
    // each row is the delivery whose Details button it has, in the same order
    const shownIds = await rows.evaluateAll((trs) =>
      trs.map((tr) =>
        (
          tr
            .querySelector("button[aria-label^='Details of delivery ']")!
            .getAttribute("aria-label") ?? ""
        ).replace("Details of delivery ", ""),
      ),
    );
    expect(records.map((r) => r.Delivery)).toEqual(shownIds);
    for (const r of records) {
      expect(r).toMatchObject({ Event: "webhook.test", Attempts: "1", "Last HTTP": "200" });
      expect(r["Event ID"]).toMatch(/^evt_/);
    }
    // the same deliveries as the API lists
    const api = (await v1("GET", `/webhooks/${webhookId}/deliveries`)) as unknown as {
      data: { id: string }[];
    };
    expect(records.map((r) => r.Delivery)).toEqual(api.data.map((d) => d.id));
    for (const secret of secrets) expect(allText(csv)).not.toContain(secret);
  });

  test("a team's members export is the rows shown", async ({ browser }) => {
    await page.goto(`${base()}/console/t/${tenantId}/stations`);
    await page.getByRole("link", { name: "Members and invites" }).click();
    await page.waitForURL(/\/console\/teams\/\d+\/members/);
    teamId = Number(/\/console\/teams\/(\d+)\//.exec(page.url())?.[1]);
    // a second member, invited and accepted
    const email = anEmail("exported");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByTestId("invite-link")).toBeVisible();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const member = await context.newPage();
    await signUp(member, "Vic Viewer", email);
    await member.getByRole("button", { name: "Accept" }).click();
    await member.waitForURL(new RegExp(`/console/t/${tenantId}/`));
    await context.close();

    await page.goto(`${base()}/console/teams/${teamId}/members`);
    const rows = page.getByTestId("member-row");
    await expect(rows).toHaveCount(2);
    const csv = await exportCsv(page);
    expect(csv[0]).toEqual(["Person", "Email", "Role", "Joined"]);
    const records = await csvMatchesShown(
      page,
      csv,
      await shownRows(page, "member-row"),
      ["Person", "Email"],
      ["Joined"],
    );
    // the role each row's picker shows
    const roles = await rows
      .locator("select")
      .evaluateAll((s) => s.map((x) => (x as HTMLSelectElement).value));
    expect(records.map((r) => r.Role)).toEqual(roles);
    expect(records.find((r) => r.Email === email)).toMatchObject({
      Person: "Vic Viewer",
      Role: "viewer",
    });
    expect(records.find((r) => r.Person === "Erin Export")?.Role).toBe("owner");
    await shot(page, "i25x-members");
  });

  test("the bills filter picks a station by its name; the list and its export narrow to it", async () => {
    await page.goto(`${base()}/console/t/${tenantId}/bills`);
    const rows = page.getByTestId("bill-row");
    await expect(rows).toHaveCount(3);
    const picker = page.getByLabel("Station", { exact: true });
    // "All stations", then the stations by their names, nothing to type
    await expect(picker.locator("option")).toHaveText(
      ["All stations", ...stations.map((s) => s.name)], // in the order they were made
    );
    await expect(page.getByLabel("Station ID")).toHaveCount(0);
    await picker.selectOption({ label: stations[1]!.name });
    await expect(rows).toHaveCount(1);
    await expect(rows.getByTestId("station-link")).toHaveText(stations[1]!.name);
    const south = await exportCsv(page);
    expect(south).toHaveLength(2);
    expect(south[1]![south[0]!.indexOf("Station")]).toBe(stations[1]!.name);

    await picker.selectOption({ label: stations[0]!.name });
    await expect(rows).toHaveCount(2);
    await expect(rows.getByTestId("station-link")).toHaveText([
      stations[0]!.name,
      stations[0]!.name,
    ]);
    await shot(page, "i25x-bills-by-station");
    await picker.selectOption({ label: "All stations" });
    await expect(rows).toHaveCount(3);
  });
});
