import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { startStripeFake, type StripeFake } from "../../testing/stripe-fake";
import { aBillingTeam, billingPath, teamBillingOverFake } from "../../testing/team-billing";
import { aUser, type TestUser } from "../../testing/users";
import { consoleAs, overTheWire } from "../../testing/console";
import { useTeamBilling } from "./stripe-billing";

let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
});
beforeEach(() => useTeamBilling(teamBillingOverFake(fake)));
afterAll(async () => {
  useTeamBilling(null);
  await fake.close();
});

type Who =
  | "owner"
  | "admin"
  | "developer"
  | "operator"
  | "viewer"
  | "billing"
  | "platform-admin"
  | "platform-support"
  | "outsider"
  | "api key";
const EVERYONE: Who[] = [
  "owner",
  "admin",
  "developer",
  "operator",
  "viewer",
  "billing",
  "platform-admin",
  "platform-support",
  "outsider",
  "api key",
];
const READERS: Who[] = ["owner", "admin", "billing", "platform-admin", "platform-support"];
const MANAGERS: Who[] = ["owner", "billing"];

/** Every billing route, and who may use it (everyone else: 403, or 404 for outsiders). */
const ROUTES: { method: string; path: string; allowed: Who[]; body?: unknown }[] = [
  { method: "GET", path: "", allowed: READERS },
  { method: "GET", path: "/invoices", allowed: READERS },
  { method: "GET", path: "/usage", allowed: READERS },
  { method: "POST", path: "/payment-method/setup", allowed: MANAGERS },
  { method: "POST", path: "/payment-method/sync", allowed: MANAGERS },
  { method: "DELETE", path: "/payment-method", allowed: MANAGERS },
  { method: "POST", path: "/bank-account/setup", allowed: MANAGERS },
  { method: "POST", path: "/bank-account/sync", allowed: MANAGERS },
  { method: "DELETE", path: "/bank-account", allowed: MANAGERS },
];

async function callers(t: Awaited<ReturnType<typeof aBillingTeam>>) {
  const people: Partial<Record<Who, string>> = { owner: t.owner.token, "api key": t.key };
  for (const role of ["admin", "developer", "operator", "viewer", "billing"] as const)
    people[role] = (await t.member(role)).token;
  people["platform-admin"] = (await aUser({ platformRole: "platform-admin" })).token;
  people["platform-support"] = (await aUser({ platformRole: "platform-support" })).token;
  people.outsider = (await aUser()).token;
  return people as Record<Who, string>;
}

describe("who may use each team billing route", () => {
  it("reads: owners, admins, billing and staff; cards and bank accounts: signed-in owners and billing only; API keys never", async () => {
    const t = await aBillingTeam();
    const who = await callers(t);
    const table: string[] = [];
    for (const route of ROUTES) {
      for (const w of EVERYONE) {
        const res = await call(route.method, billingPath(t.teamId, route.path), { key: who[w] });
        const allowed = route.allowed.includes(w);
        // a DELETE with nothing on file is 404 for the method, which is past the access check
        const passed =
          res.status === 200 ||
          (res.status === 404 &&
            ["card", "bank_account"].includes(res.body?.error?.details?.resource));
        const expected = allowed
          ? "allowed"
          : w === "outsider"
            ? "404"
            : w === "api key"
              ? "403 user_token_required"
              : "403 forbidden";
        const got = passed
          ? "allowed"
          : res.status === 404
            ? "404"
            : `${res.status} ${res.body?.error?.code}`;
        table.push(
          `${route.method} ${route.path || "/"} ${w}: ${got === expected ? "ok" : `${got} (wanted ${expected})`}`,
        );
      }
    }
    expect(table.filter((line) => !line.endsWith(": ok"))).toEqual([]);
  }, 60_000);

  it("the invoicing switch is for platform admins only", async () => {
    const t = await aBillingTeam();
    const who = await callers(t);
    const path = `/v1/admin/billing-teams/${t.teamId}/invoicing`;
    for (const w of EVERYONE.filter((w) => w !== "platform-admin")) {
      const res = await call("PATCH", path, { key: who[w], body: { mode: "send_invoice" } });
      expect([w, res.status, res.body.error.code]).toEqual([
        w,
        403,
        w === "api key" ? "user_token_required" : "forbidden",
      ]);
    }
    const res = await call("PATCH", path, {
      key: who["platform-admin"],
      body: { mode: "send_invoice" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ invoicing_mode: "send_invoice", project_limit: 20 });
    const profile = await db().teamBilling.findUniqueOrThrow({ where: { teamId: t.teamId } });
    const sub = fake.billing.subscriptions.get(profile.subscriptionRef!);
    expect(sub).toMatchObject({ collection_method: "send_invoice", days_until_due: 30 });
    const back = await call("PATCH", path, {
      key: who["platform-admin"],
      body: { mode: "automatic" },
    });
    expect(back.body.invoicing_mode).toBe("automatic");
    expect(sub!.collection_method).toBe("charge_automatically");
    const unknown = await call("PATCH", "/v1/admin/billing-teams/999999/invoicing", {
      key: who["platform-admin"],
      body: { mode: "automatic" },
    });
    expect(unknown.status).toBe(404);
  });

  it("the billing role reads no project data", async () => {
    const t = await aBillingTeam();
    const billing: TestUser = await t.member("billing");
    for (const path of ["stations", "transactions", "locations", "tariffs", "bills", "events"]) {
      const res = await call("GET", `/v1/tenants/${t.tenantId}/${path}`, { key: billing.token });
      expect([path, res.status]).toEqual([path, 403]);
    }
  });

  it("the billing role does not read a project (spec 5: billing profile, invoices and usage only); the other roles do", async () => {
    const t = await aBillingTeam();
    const billing = await t.member("billing");
    const refused = await call("GET", `/v1/tenants/${t.tenantId}`, { key: billing.token });
    expect([refused.status, refused.body.error.code]).toEqual([403, "forbidden"]);
    expect(JSON.stringify(refused.body)).not.toContain("Project");
    for (const role of ["admin", "developer", "operator", "viewer"] as const) {
      const member = await t.member(role);
      const res = await call("GET", `/v1/tenants/${t.tenantId}`, { key: member.token });
      expect([role, res.status, res.body.id]).toEqual([role, 200, t.tenantId]);
    }
    for (const key of [t.owner.token, t.key]) {
      const res = await call("GET", `/v1/tenants/${t.tenantId}`, { key });
      expect(res.status).toBe(200);
    }
    const support = await aUser({ platformRole: "platform-support" });
    expect((await call("GET", `/v1/tenants/${t.tenantId}`, { key: support.token })).status).toBe(
      200,
    );
    // the billing pages it is for still answer it
    const usage = await call("GET", billingPath(t.teamId, "/usage"), { key: billing.token });
    expect(usage.status).toBe(200);
  });

  it("the console's team pages still work for a billing member; a project's settings page is refused as its other pages are", async () => {
    const t = await aBillingTeam();
    const billing = await t.member("billing");
    const asBilling = await consoleAs(billing.userId);
    // the shell's team and project switcher, and the team's projects and members pages
    const me = await asBilling.me();
    expect(me.teams).toEqual([
      expect.objectContaining({
        id: t.teamId,
        role: "billing",
        projects: [expect.objectContaining({ id: t.tenantId, scopes: [] })],
      }),
    ]);
    const projects = await asBilling.v1.listProjects({ params: { team_id: t.teamId } });
    expect(projects.data.map((p) => p.id)).toEqual([t.tenantId]);
    const members = await asBilling.v1.listMembers({ params: { team_id: t.teamId } });
    expect(members.data.length).toBeGreaterThan(1);
    // project pages: settings (getTenant) is now refused like stations
    for (const procedure of ["v1.getTenant", "v1.listStations"]) {
      const res = await overTheWire(
        billing.userId,
        procedure,
        { params: { tenant_id: t.tenantId } },
        "query",
      );
      expect([procedure, res.status, res.apiError?.code]).toEqual([
        procedure,
        403,
        procedure === "v1.getTenant" ? "forbidden" : "insufficient_scope",
      ]);
    }
  });
});
