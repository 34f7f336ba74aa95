import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { db } from "../../db";
import { runJobsNow } from "../../jobs/run-now";
import { call } from "../../../testing/api";
import { startStripeFake, type StripeFake } from "../../../testing/stripe-fake";
import { accessTokenFor } from "../../../testing/users";
import { usePaymentProcessors } from "../processors";
import { aPaymentsProject, cardOverFake } from "../../../testing/payments";
import { accountAttemptJob } from "./account-attempt-job";

// In the product a job runner (the ocpp process's) is woken by the job's insert and can claim the
// account creation before the request's own fast path does: the fast path then ends at once,
// having run nothing. Here the fast path always loses, as it does then, and a runner takes the job
// a moment later; the request must still answer with the account within its wait.
vi.mock(import("../../jobs/run-now"), async (importOriginal) => ({
  ...(await importOriginal()),
  startJobNow: () => Promise.resolve(),
}));

let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
  usePaymentProcessors({ card: cardOverFake(fake) });
});
afterAll(async () => {
  await fake.close();
});

it("a connect whose creation a runner claimed first answers the account the runner stored", async () => {
  const p = await aPaymentsProject();
  const owner = await accessTokenFor(p.ownerUserId);
  let stop = false;
  const runner = (async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    while (!stop) {
      if ((await runJobsNow({ db: db(), definitions: [accountAttemptJob] })) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = Date.now();
  const res = await call("POST", `/v1/tenants/${p.tenantId}/payment-account`, {
    key: owner,
    body: {},
  });
  stop = true;
  await runner;
  expect(res.status).toBe(200);
  expect(res.body.payment_account.account_ref).toBe(fake.accountIds().at(-1));
  expect(res.body.onboarding.url).toContain("/setup/s/acct_");
  expect(Date.now() - started).toBeLessThan(3_000);
});
