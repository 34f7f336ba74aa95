import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
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
