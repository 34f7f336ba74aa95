import AxeBuilder from "@axe-core/playwright";
import { expect, test, type BrowserContext, type Page, type TestInfo } from "@playwright/test";
import { aReceiver } from "../testing/webhooks";
import { aCharger } from "../testing/ocpp";
import { aStation, anOwner } from "./fixtures/owner";
import { base } from "./fixtures/people";
import { loopback } from "./fixtures/product";

/**
 * Issue 25, item 7: every console page of a project with data in it, at a phone's 390 px, in
 * Chromium at the suite's public (non-localhost) address. Each page is no wider than the phone
 * (`document.scrollingElement.scrollWidth <= 390`, so nothing sideways but inside a table's own
 * scrolling box), every checkbox, radio, button, link, select and summary in the main content is a
 * target of at least 24×24 px or spaced as WCAG 2.2 (2.5.8) allows (a 24 px circle on its centre
 * touches no other target nor another small target's circle; links inside a sentence are exempt),
 * and axe-core finds nothing at WCAG 2.1 AA. A screenshot of each page is attached to the test.
 */

type V1 = Awaited<ReturnType<typeof anOwner>>["v1"];

let context: BrowserContext;
let page: Page;
let tenantId: number;
let teamId: number;
let v1: V1;
const receiver = aReceiver();
const paths: [name: string, path: string, ready?: (p: Page) => Promise<void>][] = [];

/** The targets of the main content smaller than 24×24 px and too close to another target. */
async function smallTargets(p: Page) {
  return p.evaluate(() => {
    const selector =
      'a[href], button, input[type="checkbox"], input[type="radio"], select, summary, [role="button"], [role="link"], [role="checkbox"]';
    const main = document.querySelector("main") ?? document.body;
    const all = [...main.querySelectorAll<HTMLElement>(selector)].filter((el) => {
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      return r.width > 1 && r.height > 1 && style.visibility !== "hidden";
    });
    // WCAG 2.5.8's inline exception: a link within a sentence (a paragraph with other text).
    const inline = (el: HTMLElement) => {
      if (el.tagName !== "A") return false;
      const block = el.closest("p");
      return Boolean(block && (block.textContent ?? "").trim() !== (el.textContent ?? "").trim());
    };
    const targets = all.filter((el) => !inline(el));
    const boxes = targets.map((el) => el.getBoundingClientRect());
    const small = targets.map((_, i) => boxes[i]!.width < 24 || boxes[i]!.height < 24);
    const centre = (r: DOMRect) => ({ x: r.left + r.width / 2, y: r.top + r.height / 2 });
    const circleTouchesBox = (c: { x: number; y: number }, r: DOMRect) => {
      const dx = Math.max(r.left - c.x, 0, c.x - r.right);
      const dy = Math.max(r.top - c.y, 0, c.y - r.bottom);
      return dx * dx + dy * dy < 12 * 12;
    };
    const name = (el: HTMLElement, r: DOMRect) =>
      `${el.tagName.toLowerCase()}${el.getAttribute("type") ? `[${el.getAttribute("type")}]` : ""} "${(
        el.getAttribute("aria-label") ??
        el.textContent ??
        ""
      )
        .trim()
        .slice(0, 40)}" ${Math.round(r.width)}×${Math.round(r.height)}`;
    const failing: string[] = [];
    targets.forEach((el, i) => {
      if (!small[i]) return;
      const c = centre(boxes[i]!);
      const clash = targets.findIndex((other, j) => {
        if (j === i || other.contains(el) || el.contains(other)) return false;
        if (circleTouchesBox(c, boxes[j]!)) return true;
        if (!small[j]) return false;
        const o = centre(boxes[j]!);
        return Math.hypot(o.x - c.x, o.y - c.y) < 24;
      });
      if (clash >= 0)
        failing.push(`${name(el, boxes[i]!)} near ${name(targets[clash]!, boxes[clash]!)}`);
    });
    return failing;
  });
}

async function atPhoneWidth(p: Page, info: TestInfo, name: string) {
  await expect(p.getByTestId("loading-state")).toHaveCount(0, { timeout: 20_000 });
  const width = await p.evaluate(() => document.scrollingElement!.scrollWidth);
  const small = await smallTargets(p);
  const path = `test-results/screenshots/i25f-${name}-390.png`;
  await p.screenshot({ path, fullPage: true });
  const { violations } = await new AxeBuilder({ page: p })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  const axe = violations.map(
    (v) => `${v.id} (${v.impact ?? "?"}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
  );
  await info.attach(`${name}-390`, {
    path,
    contentType: "image/png",
  });
  return { width, small, axe };
}

test.describe.serial("every console page at a phone's 390 px", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(180_000);
    context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    const signedUp = await anOwner(page, "Pia Phone", "phone");
    tenantId = signedUp.tenantId;
    v1 = signedUp.v1;
    const t = `/console/t/${tenantId}`;

    // A station with a long name, a tariff, a transaction from a real charger.
    const made = await aStation(v1, "E2E-PHONE-Supercalifragilis");
    const password = `e2e-phone-password-${Date.now()}`;
    await v1("PUT", `/stations/${made.id}/credentials`, { password });
    const station = (await v1("GET", `/stations/${made.id}`)) as unknown as {
      name: string;
      connection_url: string;
      location_id: number;
    };
    const tariff = await v1("POST", "/tariffs", { name: "Phone rate", rate_minor_per_kwh: 35 });
    const charger = aCharger({
      url: loopback(station.connection_url.replace(`/${encodeURIComponent(station.name)}`, "")),
      identity: station.name,
      password,
      protocol: "ocpp1.6",
    });
    await charger.connect();
    let transactionId: number;
    try {
      await charger.call("BootNotification", { chargePointVendor: "E2E", chargePointModel: "Sim" });
      const start = Date.now() - 60_000;
      const started = (await charger.call("StartTransaction", {
        connectorId: 1,
        idTag: "PHONE-TAG-0123456789",
        meterStart: 0,
        timestamp: new Date(start).toISOString(),
      })) as { transactionId: number };
      transactionId = started.transactionId;
      for (let i = 1; i <= 3; i += 1)
        await charger.call("MeterValues", {
          connectorId: 1,
          transactionId,
          meterValue: [
            {
              timestamp: new Date(start + i * 10_000).toISOString(),
              sampledValue: [
                { value: String(i * 300), measurand: "Energy.Active.Import.Register", unit: "Wh" },
                { value: "7200", measurand: "Power.Active.Import", unit: "W" },
              ],
            },
          ],
        });
      await charger.call("StopTransaction", {
        transactionId,
        meterStop: 1000,
        timestamp: new Date(start + 40_000).toISOString(),
        reason: "Local",
      });
      // A fault raised and cleared, and one still open: the station's fault lists, both.
      for (const [errorCode, status] of [
        ["GroundFailure", "Faulted"],
        ["NoError", "Available"],
        ["HighTemperature", "Faulted"],
      ] as const)
        await charger.call("StatusNotification", {
          connectorId: 1,
          errorCode,
          status,
          ...(errorCode === "NoError" ? {} : { info: "Cabinet sensor 3: 78 °C over the limit" }),
        });
    } finally {
      await charger.close({ force: true });
    }
    const transactions = (await v1("GET", "/transactions")) as unknown as {
      data: { id: number | string }[];
    };

    // A session (its bill settled externally), a bill with a simulator payment.
    const session = await v1("POST", "/charging-sessions", {
      station_id: made.id,
      connector_id: made.connectors[0]!.id,
      tariff_id: tariff.id,
      source: "simulated",
      processor: "fleet-account",
      application_reference: "phone-booking-0123456789abcdef",
    });
    const bill = await v1("POST", "/bills", {
      station_id: made.id,
      connector_id: made.connectors[0]!.id,
      tariff_id: tariff.id,
      source: "simulated",
    });
    await v1("POST", "/payments", {
      bill_id: bill.id,
      service: "simulator",
      return_url: `${base()}${t}/bills/${bill.id}`,
    });
    // An API key, a webhook with a delivery.
    await v1("POST", "/api-keys", { name: "Nightly export", scopes: ["stations:read"] });
    const r = await receiver;
    const webhook = await v1("POST", "/webhooks", { url: r.url, events: ["webhook.test"] });
    await v1("POST", `/webhooks/${webhook.id}/test`);
    await expect.poll(() => r.received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    // An OCPP domain, its records listed (a long hostname, to wrap at 390 px).
    await v1("POST", "/ocpp-domains", {
      hostname: `chargers-${Date.now().toString(36)}.phone-width-brand.com`,
    });

    await page.goto(`${base()}${t}/overview`);
    await page.getByRole("button", { name: "Menu" }).click();
    const members = await page
      .getByRole("link", { name: "Members and invites" })
      .getAttribute("href");
    teamId = Number(/\/console\/teams\/(\d+)\//.exec(members ?? "")?.[1]);

    paths.push(
      ["overview", `${t}/overview`],
      ["stations", `${t}/stations`, (p) => expect(p.getByTestId("station-row")).toHaveCount(1)],
      [
        "station",
        `${t}/stations/${made.id}`,
        async (p) => {
          await expect(p.getByTestId("open-fault-row")).toHaveCount(1);
          await expect(p.getByTestId("cleared-fault-row")).toHaveCount(1);
        },
      ],
      ["station-configuration", `${t}/stations/${made.id}/configuration`],
      ["locations", `${t}/locations`],
      ["location", `${t}/locations/${station.location_id}`],
      [
        "transactions",
        `${t}/transactions`,
        (p) => expect(p.getByTestId("transaction-row")).toHaveCount(1),
      ],
      ["transaction", `${t}/transactions/${transactions.data[0]!.id}`],
      ["sessions", `${t}/sessions`, (p) => expect(p.getByTestId("session-row")).toHaveCount(1)],
      ["session", `${t}/sessions/${session.id}`],
      ["events", `${t}/events`],
      [
        "webhooks",
        `${t}/webhooks`,
        async (p) => {
          const card = p.getByTestId("webhook-row").first();
          await card.getByRole("button", { name: "Deliveries" }).click();
          await card
            .getByRole("button", { name: /^Details of delivery/ })
            .first()
            .click();
          await expect(card.getByTestId("delivery-body")).toBeVisible();
        },
      ],
      ["ocpp-domains", `${t}/ocpp-domains`, (p) => expect(p.getByTestId("record")).toHaveCount(2)],
      ["tariffs", `${t}/tariffs`],
      ["device-batches", `${t}/device-batches`],
      ["bills", `${t}/bills`, (p) => expect(p.getByTestId("bill-row")).toHaveCount(2)],
      ["bill", `${t}/bills/${bill.id}`],
      ["bill-external", `${t}/bills/${String(session.bill_id)}`],
      ["payments", `${t}/payments`, (p) => expect(p.getByTestId("payment-row")).toHaveCount(1)],
      ["payment-account", `${t}/payment-account`],
      ["api-keys", `${t}/api-keys`],
      ["settings", `${t}/settings`],
      ["projects", `/console/teams/${teamId}/projects`],
      ["members", `/console/teams/${teamId}/members`],
      ["billing", `/console/teams/${teamId}/billing`],
      ["sandbox", `/console/sandbox`],
      ["invites", `/console/invites`],
    );
  });

  test.afterAll(async () => {
    await (await receiver).close();
    await context.close();
  });

  test("no page is wider than the phone, every target is 24 px or spaced, axe passes", async () => {
    test.setTimeout(300_000);
    const info = test.info();
    const found: Record<string, { width: number; small: string[]; axe: string[] }> = {};
    for (const [name, path, ready] of paths) {
      await page.goto(`${base()}${path}`);
      await expect(page.locator("main h1").first()).toBeVisible();
      if (ready) await ready(page);
      found[name] = await atPhoneWidth(page, info, name);
    }
    const wide = Object.entries(found)
      .filter(([, f]) => f.width > 390)
      .map(([name, f]) => `${name}: ${f.width} px`);
    const small = Object.entries(found)
      .filter(([, f]) => f.small.length > 0)
      .map(([name, f]) => `${name}: ${f.small.join("; ")}`);
    const axe = Object.entries(found)
      .filter(([, f]) => f.axe.length > 0)
      .map(([name, f]) => `${name}: ${f.axe.join("; ")}`);
    expect.soft(wide, "pages wider than 390 px").toEqual([]);
    expect.soft(small, "targets under 24 px without the spacing").toEqual([]);
    expect.soft(axe, "axe WCAG 2.1 AA violations at 390 px").toEqual([]);
    expect(Object.keys(found)).toHaveLength(paths.length);
  });
});
