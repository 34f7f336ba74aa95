import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "../db";
import { call, idem } from "../../testing/api";
import { aLocationBody, aStation, uniqueStationName } from "../../testing/builders";
import { startStripeFake, type StripeFake } from "../../testing/stripe-fake";
import {
  aBillingTeam,
  aMethodOnFile,
  billingPath,
  customerOf,
  deliverBillingEvents,
  sessionOf,
  teamBillingOverFake,
  TEST_PRICE,
} from "../../testing/team-billing";
import { ensureSandbox } from "../sandbox/provision";
import { sweepStanding } from "./standing-update";
import { useTeamBilling } from "./stripe-billing";

// The real `stripe` SDK against the HTTP-level Stripe fake, team billing on in this process.
let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
});
beforeEach(() => useTeamBilling(teamBillingOverFake(fake)));
afterAll(async () => {
  useTeamBilling(null);
  await fake.close();
});

const newProject = (teamId: number, token: string) =>
  call("POST", `/v1/teams/${teamId}/projects`, {
    key: token,
    body: { name: `P ${Math.random().toString(36).slice(2, 8)}` },
  });

describe("a card", () => {
  it("is on file only once /sync reads a succeeded setup back from Stripe; then it is the default and the team is subscribed", async () => {
    const t = await aBillingTeam();
    const started = await call("POST", billingPath(t.teamId, "/payment-method/setup"), {
      key: t.owner.token,
    });
    expect(started.status).toBe(200);
    expect(started.body.setup).toMatchObject({
      kind: "card",
      url: expect.stringContaining("/c/setup/cs_test_"),
    });
    const create = fake.requests.find(
      (r) => r.path === "/v1/checkout/sessions" && r.params.mode === "setup",
    )!;
    expect(create.params).toMatchObject({
      mode: "setup",
      customer: await customerOf(t.teamId),
      allowed_payment_method_types: ["card"],
      success_url: expect.stringContaining(`/console/teams/${t.teamId}/billing?setup=card`),
    });
    // Every call carried the key of its journaled call
    const journal = await db().teamBillingCall.findMany({ where: { teamId: t.teamId } });
    expect(journal).toEqual([
      expect.objectContaining({ kind: "setup_session", status: "succeeded" }),
    ]);
    expect(create.idempotencyKey).toBe(journal[0]!.id);
    expect(
      fake.requests.find((r) => r.path === "/v1/customers" && r.method === "POST")?.idempotencyKey,
    ).toBe(`team-${t.teamId}-customer`);

    // back on the console before finishing: a redirect is no proof, nothing is on file
    const early = await call("POST", billingPath(t.teamId, "/payment-method/sync"), {
      key: t.owner.token,
    });
    expect(early.body.setup).toEqual({ kind: "card", status: "open", error: null });
    expect(early.body.billing.card).toBeNull();

    const pm = fake.billing.completeSetup(sessionOf(started.body.setup.url), { card: "success" });
    const synced = await call("POST", billingPath(t.teamId, "/payment-method/sync"), {
      key: t.owner.token,
    });
    expect(synced.status).toBe(200);
    expect(synced.body.setup.status).toBe("saved");
    expect(synced.body.billing).toMatchObject({
      enabled: true,
      status: "active",
      card: { id: pm, brand: "visa", last4: "4242" },
      default_method: "card",
      pending_setups: { card: false, bank_account: false },
      project_limit: 20,
    });
    const customer = fake.billing.customers.get(await customerOf(t.teamId))!;
    expect(customer.invoice_settings.default_payment_method).toBe(pm);
    const subs = [...fake.billing.subscriptions.values()].filter((s) => s.customer === customer.id);
    expect(subs).toEqual([
      expect.objectContaining({
        collection_method: "charge_automatically",
        items: expect.objectContaining({
          data: [expect.objectContaining({ price: { id: TEST_PRICE } })],
        }),
      }),
    ]);
    expect(
      (await db().teamBilling.findUniqueOrThrow({ where: { teamId: t.teamId } })).subscriptionRef,
    ).toBe(subs[0]!.id);
  });

  it("declined: /sync says why, nothing is on file, and the same page takes another card", async () => {
    const t = await aBillingTeam();
    const started = await call("POST", billingPath(t.teamId, "/payment-method/setup"), {
      key: t.owner.token,
    });
    const session = sessionOf(started.body.setup.url);
    fake.billing.completeSetup(session, { card: { decline: "insufficient_funds" } });
    const declined = await call("POST", billingPath(t.teamId, "/payment-method/sync"), {
      key: t.owner.token,
    });
    expect(declined.body.setup).toEqual({
      kind: "card",
      status: "declined",
      error: {
        code: "card_declined",
        decline_code: "insufficient_funds",
        message: "Your card has insufficient funds.",
      },
    });
    expect(declined.body.billing.card).toBeNull();
    expect(declined.body.billing.pending_setups.card).toBe(true);
    fake.billing.completeSetup(session, { card: "success" });
    const saved = await call("POST", billingPath(t.teamId, "/payment-method/sync"), {
      key: t.owner.token,
    });
    expect(saved.body.setup.status).toBe("saved");
    expect(saved.body.billing.card).toMatchObject({ last4: "4242" });
  });

  it("deleted: detached from the Customer, no default left, and the plan's project limit is back", async () => {
    const t = await aBillingTeam();
    const saved = await aMethodOnFile(fake, t.teamId, t.owner.token);
    const pm = saved.billing.card.id as string;
    const removed = await call("DELETE", billingPath(t.teamId, "/payment-method"), {
      key: t.owner.token,
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ card: null, default_method: null, project_limit: 2 });
    expect(fake.billing.methods.get(pm)?.customer).toBeNull();
    const detach = fake.requests.find((r) => r.path === `/v1/payment_methods/${pm}/detach`)!;
    const journal = await db().teamBillingCall.findFirstOrThrow({
      where: { teamId: t.teamId, kind: "detach" },
    });
    expect(journal.status).toBe("succeeded");
    expect(detach.idempotencyKey).toBe(journal.id);
  });

  it("without a method on file a team has the plan's 2 projects; with one, more", async () => {
    const t = await aBillingTeam(); // one project already
    expect((await newProject(t.teamId, t.owner.token)).status).toBe(201);
    const third = await newProject(t.teamId, t.owner.token);
    expect(third.status).toBe(409);
    expect(third.body.error).toMatchObject({
      code: "project_limit",
      details: { limit: 2, max_projects: 20, billing_method_required: true },
    });
    await aMethodOnFile(fake, t.teamId, t.owner.token);
    expect((await newProject(t.teamId, t.owner.token)).status).toBe(201);
  });
});

describe("a US bank account", () => {
  it("is set up with instant verification, synced, and deleted (the card becomes the default again)", async () => {
    const t = await aBillingTeam();
    const card = await aMethodOnFile(fake, t.teamId, t.owner.token, "card");
    const started = await call("POST", billingPath(t.teamId, "/bank-account/setup"), {
      key: t.owner.token,
    });
    expect(started.status).toBe(200);
    expect(started.body.setup.kind).toBe("bank_account");
    const create = fake.requests
      .filter((r) => r.path === "/v1/checkout/sessions" && r.params.mode === "setup")
      .at(-1)!;
    expect(create.params).toMatchObject({
      allowed_payment_method_types: ["us_bank_account"],
      payment_method_options: { us_bank_account: { verification_method: "instant" } },
    });
    const pm = fake.billing.completeSetup(sessionOf(started.body.setup.url), { bank: "instant" });
    const synced = await call("POST", billingPath(t.teamId, "/bank-account/sync"), {
      key: t.owner.token,
    });
    expect(synced.body.setup.status).toBe("saved");
    expect(synced.body.billing).toMatchObject({
      bank_account: {
        id: pm,
        bank_name: "STRIPE TEST BANK",
        last4: "6789",
        account_type: "checking",
      },
      card: { id: card.billing.card.id },
      default_method: "bank_account",
    });

    const removed = await call("DELETE", billingPath(t.teamId, "/bank-account"), {
      key: t.owner.token,
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ bank_account: null, default_method: "card" });
    expect(fake.billing.methods.get(pm!)?.customer).toBeNull();
    expect(
      fake.billing.customers.get(await customerOf(t.teamId))!.invoice_settings
        .default_payment_method,
    ).toBe(card.billing.card.id);
    const again = await call("DELETE", billingPath(t.teamId, "/bank-account"), {
      key: t.owner.token,
    });
    expect(again.status).toBe(404);
    expect(again.body.error.details.resource).toBe("bank_account");
  });

  it("left to microdeposits: verification_pending, nothing on file yet", async () => {
    const t = await aBillingTeam();
    const started = await call("POST", billingPath(t.teamId, "/bank-account/setup"), {
      key: t.owner.token,
    });
    fake.billing.completeSetup(sessionOf(started.body.setup.url), { bank: "microdeposits" });
    const synced = await call("POST", billingPath(t.teamId, "/bank-account/sync"), {
      key: t.owner.token,
    });
    expect(synced.body.setup.status).toBe("verification_pending");
    expect(synced.body.billing.bank_account).toBeNull();
  });
});

describe("invoices and suspension, from the platform's signed webhooks", () => {
  it("an invoice paid is stored paid; one unpaid past the grace period suspends the team (402 on exactly the writes that create cost) until it is paid", async () => {
    const t = await aBillingTeam();
    await aMethodOnFile(fake, t.teamId, t.owner.token);
    const customer = await customerOf(t.teamId);
    fake.takeEvents();

    const paid = fake.billing.openInvoice(customer, 1600);
    fake.billing.payInvoice(paid);
    const first = fake.takeEvents().filter((e) => e.type.startsWith("invoice."));
    expect(await deliverBillingEvents(fake, first, 2)).toEqual(first.flatMap(() => [200, 200]));
    // each event recorded once, redeliveries acknowledged and ignored
    expect(await db().processorEvent.count({ where: { id: { in: first.map((e) => e.id) } } })).toBe(
      first.length,
    );
    let invoices = await call("GET", billingPath(t.teamId, "/invoices"), { key: t.owner.token });
    expect(invoices.body.data).toEqual([
      expect.objectContaining({
        id: paid,
        status: "paid",
        amount_paid_minor: 1600,
        overdue_since: null,
      }),
    ]);

    const unpaid = fake.billing.openInvoice(customer, 2400);
    fake.billing.failInvoicePayment(unpaid);
    await deliverBillingEvents(
      fake,
      fake.takeEvents().filter((e) => e.type.startsWith("invoice.")),
    );
    let billing = await call("GET", billingPath(t.teamId), { key: t.owner.token });
    expect(billing.body).toMatchObject({ status: "past_due", suspended_at: null, grace_days: 14 });
    // within the grace period nothing is refused
    expect((await newProject(t.teamId, t.owner.token)).status).toBe(201);

    await sweepStanding(db(), new Date(Date.now() + 15 * 86_400_000));
    billing = await call("GET", billingPath(t.teamId), { key: t.owner.token });
    expect(billing.body).toMatchObject({
      status: "suspended",
      what_to_do: expect.stringContaining("pay the open invoice"),
    });

    // the writes that create cost: a project, a station
    const project = await newProject(t.teamId, t.owner.token);
    expect(project.status).toBe(402);
    expect(project.body.error).toMatchObject({
      code: "billing_suspended",
      details: { team_id: t.teamId, invoices: `/v1/teams/${t.teamId}/billing/invoices` },
    });
    const location = await call("POST", `/v1/tenants/${t.tenantId}/locations`, {
      key: t.key,
      idempotencyKey: idem(),
      body: aLocationBody(),
    });
    expect(location.status).toBe(201); // a location costs nothing
    const locationId = location.body.id as number;
    const station = await call("POST", `/v1/tenants/${t.tenantId}/stations`, {
      key: t.key,
      idempotencyKey: idem(),
      body: { name: uniqueStationName(), location_id: locationId, connector_count: 1 },
    });
    expect(station.status).toBe(402);
    expect(station.body.error.code).toBe("billing_suspended");
    // everything else keeps working: reads, renaming a project, the billing pages
    expect((await call("GET", `/v1/tenants/${t.tenantId}/stations`, { key: t.key })).status).toBe(
      200,
    );
    expect(
      (
        await call("PATCH", `/v1/tenants/${t.tenantId}`, {
          key: t.owner.token,
          body: { name: "Renamed" },
        })
      ).status,
    ).toBe(200);
    invoices = await call("GET", billingPath(t.teamId, "/invoices"), { key: t.owner.token });
    expect(invoices.body.data[0]).toMatchObject({
      id: unpaid,
      status: "open",
      overdue_since: expect.any(String),
    });

    // paying lifts it at once
    fake.billing.payInvoice(unpaid);
    await deliverBillingEvents(
      fake,
      fake.takeEvents().filter((e) => e.type.startsWith("invoice.")),
    );
    billing = await call("GET", billingPath(t.teamId), { key: t.owner.token });
    expect(billing.body).toMatchObject({
      status: "active",
      suspended_at: null,
      past_due_since: null,
    });
    expect((await newProject(t.teamId, t.owner.token)).status).toBe(201);
    expect(
      (
        await call("POST", `/v1/tenants/${t.tenantId}/stations`, {
          key: t.key,
          idempotencyKey: idem(),
          body: { name: uniqueStationName(), location_id: locationId, connector_count: 1 },
        })
      ).status,
    ).toBe(201);
  });

  it("a suspended team's sandbox is still provisioned: its virtual chargers cost nothing", async () => {
    const t = await aBillingTeam();
    await db().teamBilling.create({
      data: { teamId: t.teamId, status: "suspended", suspendedAt: new Date() },
    });
    expect((await newProject(t.teamId, t.owner.token)).body.error.code).toBe("billing_suspended");
    const sandbox = await ensureSandbox(db(), t.teamId);
    expect(await db().station.count({ where: { tenantId: sandbox } })).toBe(3);
  });

  it("refuses an unsigned or wrongly signed delivery (400) and acts on nothing", async () => {
    const t = await aBillingTeam();
    await aMethodOnFile(fake, t.teamId, t.owner.token);
    const invoice = fake.billing.openInvoice(await customerOf(t.teamId), 900);
    const [event] = fake.takeEvents().filter((e) => e.type === "invoice.finalized");
    const { payload, signature: forged } = fake.sign(event!, { secret: "whsec_other" });
    const { receiveStripeBillingWebhook } = await import("../http/stripe-billing-webhook");
    const res = await receiveStripeBillingWebhook(
      new Request("http://localhost/api/stripe/billing-webhook", {
        method: "POST",
        headers: { "stripe-signature": forged },
        body: payload,
      }),
    );
    expect(res.status).toBe(400);
    expect(await db().teamInvoice.findUnique({ where: { id: invoice } })).toBeNull();
    expect(await db().processorEvent.findUnique({ where: { id: event!.id } })).toBeNull();
  });
});

describe("team billing off (no Stripe keys)", () => {
  it("limits nothing, says so, and refuses the setup routes", async () => {
    useTeamBilling(null);
    const t = await aBillingTeam();
    for (let i = 0; i < 3; i++)
      expect((await newProject(t.teamId, t.owner.token)).status).toBe(201);
    const billing = await call("GET", billingPath(t.teamId), { key: t.owner.token });
    expect(billing.body).toMatchObject({
      enabled: false,
      status: "active",
      project_limit: 20,
      what_to_do: null,
    });
    const setup = await call("POST", billingPath(t.teamId, "/payment-method/setup"), {
      key: t.owner.token,
    });
    expect(setup.status).toBe(409);
    expect(setup.body.error.code).toBe("team_billing_off");
    // a suspended row left from when billing was on limits nothing either
    await db().teamBilling.upsert({
      where: { teamId: t.teamId },
      create: { teamId: t.teamId, status: "suspended" },
      update: { status: "suspended" },
    });
    expect((await newProject(t.teamId, t.owner.token)).status).toBe(201);
    expect((await aStation(t.tenantId, t.key)).id).toEqual(expect.any(Number));
  });
});
