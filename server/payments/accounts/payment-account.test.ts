import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../db";
import { env } from "../../env";
import { call } from "../../../testing/api";
import { aTenantWithKey } from "../../../testing/builders";
import { startStripeFake, type StripeFake } from "../../../testing/stripe-fake";
import { accessTokenFor, aMember, aUser } from "../../../testing/users";
import { usePaymentProcessors } from "../processors";
import { createStripeProcessor } from "../processors/stripe";
import { refreshPaymentAccount } from "./refresh-payment-account";

// The routes through the real router, the real `stripe` SDK underneath, the Stripe fake over HTTP.
let fake: StripeFake;
const configured = () =>
  createStripeProcessor({
    secretKey: fake.secretKey,
    connectWebhookSecret: fake.webhookSecret,
    apiUrl: fake.url,
    timeoutMs: 5000,
  });

beforeAll(async () => {
  fake = await startStripeFake();
  usePaymentProcessors({ card: configured() });
});
afterEach(() => usePaymentProcessors({ card: configured() }));
afterAll(async () => {
  await fake.close();
});

/** A project, its owner's access token and a key with every project scope. */
async function aProject() {
  const project = await aTenantWithKey();
  return { ...project, owner: await accessTokenFor(project.ownerUserId) };
}

const path = (tenantId: number) => `/v1/tenants/${tenantId}/payment-account`;
const connect = (tenantId: number, key: string, body: Record<string, unknown> = {}) =>
  call("POST", path(tenantId), { key, body });
const accountLinks = () => fake.requests.filter((r) => r.path === "/v1/account_links");

describe("connecting the tenant's payment account", () => {
  it("creates a Stripe account for the owner and answers an onboarding link back to the console", async () => {
    const p = await aProject();
    expect((await call("GET", path(p.tenantId), { key: p.owner })).body).toMatchObject({
      status: "not_connected",
      account_ref: null,
      charges_enabled: false,
    });

    const res = await connect(p.tenantId, p.owner);
    expect(res.status).toBe(200);
    const account = res.body.payment_account;
    expect(account).toMatchObject({
      tenant_id: p.tenantId,
      provider: "stripe",
      status: "onboarding",
      charges_enabled: false,
      details_submitted: false,
      connected_by_user_id: p.ownerUserId,
    });
    expect(account.account_ref).toMatch(/^acct_/);
    expect(account.requirements_due).toContain("external_account");
    expect(res.body.onboarding.url).toMatch(
      new RegExp(`^${fake.url}/setup/s/${account.account_ref}/`),
    );

    const page = `${env().publicBaseUrl}/console/t/${p.tenantId}/payment-account`;
    expect(accountLinks().at(-1)?.params).toMatchObject({
      account: account.account_ref,
      type: "account_onboarding",
      return_url: `${page}?onboarding=return`,
      refresh_url: `${page}?onboarding=refresh`,
    });
    const creation = fake.requests.find((r) => r.path === "/v1/accounts" && r.method === "POST");
    expect(creation?.idempotencyKey).toBeTruthy();
    expect(await db().paymentAccount.findUnique({ where: { tenantId: p.tenantId } })).toMatchObject(
      { accountRef: account.account_ref, status: "onboarding", connectedByUserId: p.ownerUserId },
    );
  });

  it("asked again, answers a new link for the same account (one account at Stripe)", async () => {
    const p = await aProject();
    const admin = await aMember(p.teamId, "admin");
    const first = await connect(p.tenantId, p.owner);
    const accounts = fake.accountIds().length;
    const again = await connect(p.tenantId, admin.token);
    expect(again.status).toBe(200);
    expect(again.body.payment_account.account_ref).toBe(first.body.payment_account.account_ref);
    expect(again.body.onboarding.url).not.toBe(first.body.onboarding.url);
    expect(fake.accountIds().length).toBe(accounts);
  });

  it("two concurrent first connections make one account", async () => {
    const p = await aProject();
    const before = fake.accountIds().length;
    const [a, b] = await Promise.all([connect(p.tenantId, p.owner), connect(p.tenantId, p.owner)]);
    const refs = [a, b]
      .filter((r) => r.status === 200)
      .map((r) => r.body.payment_account.account_ref);
    expect(refs.length).toBeGreaterThan(0);
    expect(new Set(refs).size).toBe(1);
    expect(fake.accountIds().length).toBe(before + 1);
  });

  it("refresh stores what Stripe says once onboarding is finished", async () => {
    const p = await aProject();
    const { body } = await connect(p.tenantId, p.owner);
    const ref: string = body.payment_account.account_ref;

    fake.completeOnboarding(ref);
    expect((await call("GET", path(p.tenantId), { key: p.owner })).body.status).toBe("onboarding");
    const refreshed = await call("POST", `${path(p.tenantId)}/refresh`, { key: p.owner });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({
      status: "active",
      charges_enabled: true,
      details_submitted: true,
      requirements_due: [],
    });
    expect((await call("GET", path(p.tenantId), { key: p.owner })).body.status).toBe("active");

    // Stripe later disables charges until more details come in
    fake.updateAccount(ref, { chargesEnabled: false, requirementsDue: ["individual.id_number"] });
    expect(await refreshPaymentAccount({ tenantId: p.tenantId })).toMatchObject({
      status: "restricted",
      charges_enabled: false,
      requirements_due: ["individual.id_number"],
    });
  });

  it("the fake's hosted onboarding finishes once and returns to the console", async () => {
    const p = await aProject();
    const { body } = await connect(p.tenantId, p.owner);
    const page = await fetch(body.onboarding.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Finish onboarding");
    const finished = await fetch(`${body.onboarding.url}/finish`, {
      method: "POST",
      redirect: "manual",
    });
    expect(finished.status).toBe(303);
    expect(finished.headers.get("location")).toMatch(/\?onboarding=return$/);
    const reused = await fetch(body.onboarding.url, { redirect: "manual" });
    expect(reused.headers.get("location")).toMatch(/\?onboarding=refresh$/);
    const refreshed = await call("POST", `${path(p.tenantId)}/refresh`, { key: p.owner });
    expect(refreshed.body.status).toBe("active");
  });

  it("links an existing account the platform can reach, and refuses one it cannot or another project holds", async () => {
    const p = await aProject();
    const other = await aProject();
    const { body } = await connect(other.tenantId, other.owner);
    const taken: string = body.payment_account.account_ref;

    const unknown = await connect(p.tenantId, p.owner, { account_ref: "acct_doesnotexist" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details.fields).toEqual([
      expect.objectContaining({ field: "account_ref", location: "body" }),
    ]);
    const clash = await connect(p.tenantId, p.owner, { account_ref: taken });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe("payment_account_taken");

    // once the other project lets it go, it can be linked here
    expect((await call("DELETE", path(other.tenantId), { key: other.owner })).status).toBe(200);
    const linked = await connect(p.tenantId, p.owner, { account_ref: taken });
    expect(linked.status).toBe(200);
    expect(linked.body.payment_account).toMatchObject({ account_ref: taken, status: "onboarding" });

    const another = await connect(p.tenantId, p.owner, { account_ref: fake.accountIds()[0] });
    expect(another.status).toBe(409);
    expect(another.body.error.code).toBe("payment_account_connected");
    expect(another.body.error.details.account_ref).toBe(taken);
  });

  it("disconnects: no charges on it any more, a second disconnect is 404, connecting again makes a new account", async () => {
    const p = await aProject();
    const { body } = await connect(p.tenantId, p.owner);
    fake.completeOnboarding(body.payment_account.account_ref);
    await call("POST", `${path(p.tenantId)}/refresh`, { key: p.owner });

    const gone = await call("DELETE", path(p.tenantId), { key: p.owner });
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({
      status: "disconnected",
      charges_enabled: false,
      account_ref: body.payment_account.account_ref,
    });
    expect(gone.body.disconnected_at).not.toBeNull();
    expect((await call("GET", path(p.tenantId), { key: p.owner })).body.status).toBe(
      "disconnected",
    );
    const twice = await call("DELETE", path(p.tenantId), { key: p.owner });
    expect(twice.status).toBe(404);
    expect((await call("POST", `${path(p.tenantId)}/refresh`, { key: p.owner })).status).toBe(404);

    const again = await connect(p.tenantId, p.owner);
    expect(again.status).toBe(200);
    expect(again.body.payment_account.account_ref).not.toBe(body.payment_account.account_ref);
    expect(again.body.payment_account.status).toBe("onboarding");
    expect(again.body.payment_account.disconnected_at).toBeNull();
  });
});

describe("who may", () => {
  const routes = (tenantId: number) =>
    [
      ["GET", path(tenantId)],
      ["POST", path(tenantId)],
      ["POST", `${path(tenantId)}/refresh`],
      ["DELETE", path(tenantId)],
    ] as const;

  it("API keys get 403 user_token_required on every route, whatever their scopes", async () => {
    const p = await aProject();
    for (const [method, url] of routes(p.tenantId)) {
      const res = await call(method, url, {
        key: p.key,
        ...(method === "POST" && url === path(p.tenantId) ? { body: {} } : {}),
      });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error.code).toBe("user_token_required");
    }
    expect(await db().paymentAccount.count({ where: { tenantId: p.tenantId } })).toBe(0);
  });

  it("members who are not owners or admins get 403 forbidden; other teams' people 404", async () => {
    const p = await aProject();
    await connect(p.tenantId, p.owner);
    for (const role of ["developer", "operator", "viewer", "billing"] as const) {
      const member = await aMember(p.teamId, role);
      for (const [method, url] of routes(p.tenantId)) {
        const res = await call(method, url, {
          key: member.token,
          ...(method === "POST" && url === path(p.tenantId) ? { body: {} } : {}),
        });
        expect(res.status, `${role} ${method} ${url}`).toBe(403);
        expect(res.body.error.code).toBe("forbidden");
      }
    }
    const stranger = await aUser();
    const res = await call("GET", path(p.tenantId), { key: stranger.token });
    expect(res.status).toBe(404);
    expect((await call("GET", path(p.tenantId), { key: p.owner })).body.status).toBe("onboarding");
  });
});

describe("without Stripe", () => {
  it("no STRIPE_SECRET_KEY: connect and refresh say so (409), reads and disconnect still work", async () => {
    const p = await aProject();
    await connect(p.tenantId, p.owner);
    usePaymentProcessors({
      card: createStripeProcessor({ secretKey: null, connectWebhookSecret: null, apiUrl: null }),
    });
    const requests = fake.requests.length;
    const res = await connect(p.tenantId, p.owner);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: "payment_service_unavailable",
      details: { service: "card", reason: expect.stringContaining("STRIPE_SECRET_KEY") },
    });
    const refresh = await call("POST", `${path(p.tenantId)}/refresh`, { key: p.owner });
    expect(refresh.body.error.code).toBe("payment_service_unavailable");
    expect(fake.requests.length).toBe(requests);
    expect((await call("GET", path(p.tenantId), { key: p.owner })).status).toBe(200);
    expect((await call("DELETE", path(p.tenantId), { key: p.owner })).status).toBe(200);
  });

  it("Stripe failing is 503 service_unavailable and stores nothing", async () => {
    const p = await aProject();
    fake.injectFault("POST", "/v1/accounts", { kind: "error500" });
    const res = await connect(p.tenantId, p.owner);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("service_unavailable");
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await db().paymentAccount.count({ where: { tenantId: p.tenantId } })).toBe(0);
  });
});
