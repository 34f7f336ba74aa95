import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BillingOff, setupWords } from "../../components/console/pages/team-billing";
import { billingRefusal } from "../../components/console/ui";
import { consoleAs } from "../../testing/console";
import { startStripeFake, type StripeFake } from "../../testing/stripe-fake";
import { aBillingTeam, sessionOf, teamBillingOverFake } from "../../testing/team-billing";
import { useTeamBilling } from "../team-billing/stripe-billing";
import { ConsoleApiError } from "./init";

let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
});
beforeEach(() => useTeamBilling(teamBillingOverFake(fake)));
afterAll(async () => {
  useTeamBilling(null);
  await fake.close();
});

/** The API's error code of a refused console call, or "ok". */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof ConsoleApiError) return error.body.code;
    throw error;
  }
}

/**
 * The console's Billing page reaches the team billing routes as the signed-in person: the same
 * roles read and manage as on /v1 (server/team-billing/README.md, "Who").
 */
describe("team billing in the console", () => {
  it("owners and billing members set up, sync and remove; admins read only; other roles are refused", async () => {
    const t = await aBillingTeam();
    const params = { params: { team_id: t.teamId } };
    const owner = await consoleAs(t.owner.userId);
    const admin = await consoleAs((await t.member("admin")).userId);
    const billing = await consoleAs((await t.member("billing")).userId);
    const developer = await consoleAs((await t.member("developer")).userId);

    for (const reader of [owner, admin, billing]) {
      expect((await reader.v1.getTeamBilling(params)).enabled).toBe(true);
      expect((await reader.v1.listTeamInvoices(params)).data).toEqual([]);
      expect((await reader.v1.listTeamUsage(params)).data[0]?.active_chargers).toBe(0);
    }
    expect(await outcome(developer.v1.getTeamBilling(params))).toBe("forbidden");
    expect(await outcome(admin.v1.setupTeamCard(params))).toBe("forbidden");
    expect(await outcome(admin.v1.deleteTeamBankAccount(params))).toBe("forbidden");

    // a billing member puts a card on file: Stripe's page, then /sync reads it back
    const started = await billing.v1.setupTeamCard(params);
    expect(started.setup.url).toContain("/c/setup/cs_test_");
    fake.billing.completeSetup(sessionOf(started.setup.url), {
      card: { decline: "insufficient_funds" },
    });
    const declined = await billing.v1.syncTeamCard(params);
    expect(declined.setup).toMatchObject({
      status: "declined",
      error: { message: "Your card has insufficient funds." },
    });
    fake.billing.completeSetup(sessionOf(started.setup.url), { card: "success" });
    const saved = await owner.v1.syncTeamCard(params);
    expect(saved.setup.status).toBe("saved");
    expect(saved.billing.card).toMatchObject({ brand: "visa", last4: "4242" });

    // a bank account too, then the card is removed and the bank account pays
    const bank = await owner.v1.setupTeamBankAccount(params);
    fake.billing.completeSetup(sessionOf(bank.setup.url), { bank: "instant" });
    expect((await owner.v1.syncTeamBankAccount(params)).setup.status).toBe("saved");
    const removed = await billing.v1.deleteTeamCard(params);
    expect(removed.card).toBeNull();
    expect(removed.default_method).toBe("bank_account");
  });
});

describe("the Billing page's words", () => {
  it("with team billing off, the page says so and how it is turned on, and nothing else", async () => {
    useTeamBilling(null);
    const t = await aBillingTeam();
    const owner = await consoleAs(t.owner.userId);
    const profile = await owner.v1.getTeamBilling({ params: { team_id: t.teamId } });
    expect(profile.enabled).toBe(false);
    const html = renderToStaticMarkup(createElement(BillingOff, { profile }));
    expect(html).toContain("Team billing is off");
    expect(html).toContain("nothing is limited by it (up to 20 projects per team)");
    for (const name of [
      "STRIPE_SECRET_KEY",
      "STRIPE_BILLING_WEBHOOK_SECRET",
      "STRIPE_BILLING_PRICE_ID",
    ])
      expect(html).toContain(`<code>${name}</code>`);
    expect(html).not.toMatch(/Set up|Remove|Invoices|Usage/);
  });

  it("a setup's outcome and a billing refusal are said in words, never as a code or a /v1 path", async () => {
    const t = await aBillingTeam();
    const owner = await consoleAs(t.owner.userId);
    const billing = await owner.v1.getTeamBilling({ params: { team_id: t.teamId } });
    const card = {
      ...billing,
      card: { id: "pm_1", brand: "visa", last4: "4242", exp_month: 3, exp_year: 2031 },
    };
    const said = (status: Parameters<typeof setupWords>[0]["status"], error = null as never) =>
      setupWords(
        { kind: status === "verification_pending" ? "bank_account" : "card", status, error },
        card,
      );
    expect(said("saved")).toBe(
      "Saved: the card Visa ending 4242, expires 03/2031 is on file and pays the team's invoices.",
    );
    expect(
      setupWords(
        {
          kind: "card",
          status: "declined",
          error: {
            code: "card_declined",
            decline_code: "lost_card",
            message: "Your card was declined.",
          },
        },
        card,
      ),
    ).toBe(
      "The card was declined: Your card was declined. Nothing was saved; try again with another card.",
    );
    expect(said("verification_pending")).toMatch(/^The bank account waits for verification/);
    expect(said("expired")).toMatch(/expired before the card was saved/);
    expect(said("open")).toMatch(/left unfinished/);

    const suspended = billingRefusal({
      code: "billing_suspended",
      message: "… GET /v1/teams/7/billing/invoices …",
      details: { team_id: 7 },
    });
    expect(suspended).toEqual({
      words: expect.stringMatching(/^Refused: this team's billing is suspended/),
      href: "/console/teams/7/billing",
    });
    expect(suspended!.words).not.toMatch(/\/v1|billing_suspended/);
    expect(
      billingRefusal(
        {
          code: "project_limit",
          message: "…",
          details: { limit: 2, max_projects: 20, billing_method_required: true },
        },
        7,
      )?.words,
    ).toBe(
      "Refused: this team has the 2 projects its plan includes without a billing method. Put a card or bank account on file for up to 20.",
    );
    // the service's own cap is no billing matter
    expect(
      billingRefusal(
        { code: "project_limit", message: "…", details: { billing_method_required: false } },
        7,
      ),
    ).toBeNull();
  });
});
