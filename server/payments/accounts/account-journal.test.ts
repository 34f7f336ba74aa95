import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../../db";
import { aBill } from "../../../testing/bills";
import { defineJob } from "../../jobs/define-job";
import { runJobsNow, startedJobsSettled } from "../../jobs/run-now";
import { call } from "../../../testing/api";
import { startStripeFake, type FakeEvent, type StripeFake } from "../../../testing/stripe-fake";
import { accessTokenFor } from "../../../testing/users";
import { cardProcessor, usePaymentProcessors } from "../processors";
import { createStripeProcessor } from "../processors/stripe";
import { receiveStripeWebhook } from "../../http/stripe-webhook";
import {
  aConnectedAccount,
  aPaymentsProject,
  authorize,
  cardOverFake,
  paymentAction,
  readPayment,
} from "../../../testing/payments";
import { accountAttemptJob, newAccountAttempt } from "./account-attempt-job";

// Issue 21: creating a connected account is journaled like every processor call (point 1), a
// payment account whose platform access was revoked cannot charge, and disconnecting tells
// Stripe (point 13). The routes through the real router, the real `stripe` SDK, the HTTP fake.
let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterEach(async () => {
  vi.useRealTimers();
  await startedJobsSettled();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterAll(async () => {
  await fake.close();
});

const later = (ms: number) => new Date(Date.now() + ms);
const path = (tenantId: number) => `/v1/tenants/${tenantId}/payment-account`;

/** A project with a station and tariff, and its owner's access token. */
async function aProject() {
  const p = await aPaymentsProject();
  return { ...p, owner: await accessTokenFor(p.ownerUserId) };
}

const accountCreations = () =>
  fake.requests.filter((r) => r.method === "POST" && r.path === "/v1/accounts");
const deauthorizations = (accountRef: string) =>
  fake.requests.filter(
    (r) => r.path === "/oauth/deauthorize" && r.params.stripe_user_id === accountRef,
  );

async function deliver(events: FakeEvent[]) {
  const statuses: number[] = [];
  for (const event of events) {
    const { payload, signature } = fake.sign(event);
    const res = await receiveStripeWebhook(
      new Request("http://localhost:3000/api/stripe/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body: payload,
      }),
    );
    statuses.push(res.status);
  }
  return statuses;
}

describe("creating the connected account, journaled", () => {
  it("an answer lost after Stripe made the account, asked again later, still makes one account", async () => {
    usePaymentProcessors({ card: cardOverFake(fake, { timeoutMs: 1_000 }) });
    const p = await aProject();
    const before = fake.accountIds().length;
    const creations = accountCreations().length;
    // Stripe creates the account and stores the answer; the caller never hears it.
    fake.injectFault("POST", "/v1/accounts", { kind: "stall_after_apply" });
    const lost = await call("POST", path(p.tenantId), { key: p.owner, body: {} });
    expect(lost.status).toBe(503);
    expect(lost.body.error.code).toBe("service_unavailable");
    expect(fake.accountIds().length).toBe(before + 1);
    // The person tries again a quarter of an hour later.
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(later(15 * 60_000));
    const owner = await accessTokenFor(p.ownerUserId);
    const again = await call("POST", path(p.tenantId), { key: owner, body: {} });
    expect(again.status).toBe(200);
    expect(fake.accountIds().length).toBe(before + 1);
    expect(again.body.payment_account.account_ref).toBe(fake.accountIds().at(-1));
    const keys = accountCreations()
      .slice(creations)
      .map((r) => r.idempotencyKey);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys).size).toBe(1);
    expect(again.body.payment_account.attempts).toEqual([
      expect.objectContaining({ id: keys[0], kind: "create", status: "succeeded" }),
    ]);
  });

  it("a 500 Stripe stores for the key blocks connecting for minutes, not a day", async () => {
    const p = await aProject();
    const creations = accountCreations().length;
    fake.injectFault("POST", "/v1/accounts", { kind: "error500" });
    expect((await call("POST", path(p.tenantId), { key: p.owner, body: {} })).status).toBe(503);
    // Asked again at once: the same creation, and Stripe replays its 500 for that key.
    expect((await call("POST", path(p.tenantId), { key: p.owner, body: {} })).status).toBe(503);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(later(11 * 60_000));
    const owner = await accessTokenFor(p.ownerUserId);
    const again = await call("POST", path(p.tenantId), { key: owner, body: {} });
    expect(again.status).toBe(200);
    const keys = accountCreations()
      .slice(creations)
      .map((r) => r.idempotencyKey);
    expect(new Set(keys).size).toBe(2);
    expect(again.body.payment_account.attempts).toEqual([
      expect.objectContaining({ id: keys.at(-1), status: "succeeded" }),
      expect.objectContaining({ id: keys[0], status: "abandoned" }),
    ]);
  });

  it("a runner that dies between Stripe's answer and the write is replaced by one that gets the same account", async () => {
    const p = await aProject();
    const caller = await db().user.findUniqueOrThrow({ where: { id: p.ownerUserId } });
    const attempt = await db().$transaction((tx) =>
      newAccountAttempt(tx, {
        tenantId: p.tenantId,
        kind: "create",
        accountRef: null,
        request: { country: "US", email: caller.email },
        createdBy: p.ownerUserId,
      }),
    );
    let release!: () => void;
    const dies = new Promise<void>((resolve) => (release = resolve));
    // The same job (same id, same payload), whose runner makes the call and then never writes.
    const dying = defineJob({
      id: accountAttemptJob.id,
      payload: accountAttemptJob.payload,
      leaseMs: accountAttemptJob.leaseMs,
      handler: async ({ attempt_id }) => {
        await cardProcessor().createAccount({
          idempotencyKey: attempt_id,
          country: "US",
          email: caller.email,
        });
        await dies;
        throw new Error("killed");
      },
    });
    const before = fake.accountIds().length;
    const first = runJobsNow({ db: db(), definitions: [dying], runnerId: "doomed" });
    await fake.settled();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.accountIds().length).toBe(before + 1);
    expect(await db().paymentAccount.findUnique({ where: { tenantId: p.tenantId } })).toBeNull();
    // Its lease lapses; another runner takes the job over with the real definition.
    const taken = await runJobsNow({
      db: db(),
      definitions: [accountAttemptJob],
      now: later(accountAttemptJob.leaseMs + 1_000),
      runnerId: "survivor",
    });
    expect(taken).toBeGreaterThanOrEqual(1); // this one, and any other this file left due
    release();
    await first;
    expect(fake.accountIds().length).toBe(before + 1);
    const row = await db().paymentAccount.findUniqueOrThrow({ where: { tenantId: p.tenantId } });
    expect(row).toMatchObject({
      accountRef: fake.accountIds().at(-1),
      status: "onboarding",
      connectedByUserId: p.ownerUserId,
    });
    expect(
      await db().paymentAccountAttempt.findUniqueOrThrow({ where: { id: attempt.id } }),
    ).toMatchObject({ status: "succeeded", accountRef: row.accountRef });
    // The person's next visit gets an onboarding link for that account, and no new one.
    const link = await call("POST", path(p.tenantId), { key: p.owner, body: {} });
    expect(link.body.payment_account.account_ref).toBe(row.accountRef);
    expect(fake.accountIds().length).toBe(before + 1);
  });
});

describe("an account whose platform access was revoked", () => {
  it("is marked unable to charge when Stripe says so (account.application.deauthorized)", async () => {
    const p = await aProject();
    const ref = await aConnectedAccount(fake, p.tenantId);
    fake.takeEvents();
    fake.revokeAccess(ref);
    const events = fake.takeEvents();
    expect(events.map((e) => [e.type, e.account])).toEqual([
      ["account.application.deauthorized", ref],
    ]);
    expect(await deliver(events)).toEqual([200]);
    expect((await call("GET", path(p.tenantId), { key: p.owner })).body).toMatchObject({
      status: "access_revoked",
      charges_enabled: false,
      account_ref: ref,
    });
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const refused = await authorize(p, { bill_id: bill.id, service: "card" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "payment_account_not_ready",
      details: { account_status: "access_revoked", charges_enabled: false },
    });
  });

  it("is marked unable to charge by a refresh that Stripe answers with a permission error", async () => {
    const p = await aProject();
    const connected = await call("POST", path(p.tenantId), { key: p.owner, body: {} });
    const ref: string = connected.body.payment_account.account_ref;
    fake.completeOnboarding(ref);
    expect((await call("POST", `${path(p.tenantId)}/refresh`, { key: p.owner })).body.status).toBe(
      "active",
    );
    fake.revokeAccess(ref);
    const refreshed = await call("POST", `${path(p.tenantId)}/refresh`, { key: p.owner });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ status: "access_revoked", charges_enabled: false });
    expect(
      await db().paymentAccount.findUniqueOrThrow({ where: { tenantId: p.tenantId } }),
    ).toMatchObject({ status: "access_revoked", chargesEnabled: false });
  });
});

describe("disconnecting tells Stripe", () => {
  it("deauthorizes the account once no payment on it is open, with the journal's key and the platform's client id", async () => {
    const p = await aProject();
    const ref = await aConnectedAccount(fake, p.tenantId);
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const created = await authorize(p, { bill_id: bill.id, service: "card" });
    const row = await db().payment.findUniqueOrThrow({ where: { id: created.body.id } });
    fake.completeCheckout(row.processorCheckoutRef!, "success");
    expect((await readPayment(p, row.id)).body.status).toBe("authorized");

    const gone = await call("DELETE", path(p.tenantId), { key: p.owner });
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ status: "disconnected", charges_enabled: false });
    const attempt = gone.body.attempts[0];
    expect(attempt).toMatchObject({ kind: "deauthorize", status: "pending", account_ref: ref });

    // A hold on the account is still open: revoking access now would strand it.
    await runJobsNow({ db: db(), definitions: [accountAttemptJob] });
    expect(deauthorizations(ref)).toHaveLength(0);
    expect((await call("GET", path(p.tenantId), { key: p.owner })).body.attempts[0]).toMatchObject({
      id: attempt.id,
      status: "pending",
      error: { kind: "waiting", code: "open_payments" },
    });
    expect((await paymentAction(p, row.id, "release")).body.status).toBe("released");

    await runJobsNow({ db: db(), definitions: [accountAttemptJob], now: later(2_000) });
    expect(deauthorizations(ref)).toEqual([
      expect.objectContaining({
        method: "POST",
        idempotencyKey: attempt.id,
        params: { client_id: fake.clientId, stripe_user_id: ref },
        status: 200,
      }),
    ]);
    expect((await call("GET", path(p.tenantId), { key: p.owner })).body.attempts[0]).toMatchObject({
      id: attempt.id,
      status: "succeeded",
      error: null,
    });
    // Stripe no longer lets the platform reach it.
    await expect(cardProcessor().readAccount(ref)).rejects.toMatchObject({ kind: "not_found" });
  });

  it("leaves an account connected again meanwhile alone", async () => {
    const p = await aProject();
    const ref = await aConnectedAccount(fake, p.tenantId);
    const gone = await call("DELETE", path(p.tenantId), { key: p.owner });
    const attemptId = gone.body.attempts[0].id as string;
    const again = await call("POST", path(p.tenantId), {
      key: p.owner,
      body: { account_ref: ref },
    });
    expect(again.status).toBe(200);
    await runJobsNow({ db: db(), definitions: [accountAttemptJob] });
    expect(deauthorizations(ref)).toHaveLength(0);
    expect(
      await db().paymentAccountAttempt.findUniqueOrThrow({ where: { id: attemptId } }),
    ).toMatchObject({ status: "failed", error: { code: "account_connected_again" } });
    expect((await call("GET", path(p.tenantId), { key: p.owner })).body.status).toBe("active");
  });

  it("records that Stripe was not told when the platform has no Connect client id", async () => {
    usePaymentProcessors({
      card: createStripeProcessor({
        secretKey: fake.secretKey,
        connectWebhookSecret: fake.webhookSecret,
        apiUrl: fake.url,
        timeoutMs: 5_000,
      }),
    });
    const p = await aProject();
    const ref = await aConnectedAccount(fake, p.tenantId);
    const gone = await call("DELETE", path(p.tenantId), { key: p.owner });
    await runJobsNow({ db: db(), definitions: [accountAttemptJob] });
    expect(deauthorizations(ref)).toHaveLength(0);
    expect(
      await db().paymentAccountAttempt.findUniqueOrThrow({
        where: { id: gone.body.attempts[0].id },
      }),
    ).toMatchObject({
      status: "failed",
      error: { kind: "unavailable", message: expect.stringContaining("STRIPE_CONNECT_CLIENT_ID") },
    });
  });
});
