import { z } from "zod";
import type { DbTx } from "../../db";
import { Prisma, type PaymentAccountAttempt } from "../../generated/prisma/client";
import { defineJob, leaseForCalls, stepBackoff, type JobContext } from "../../jobs/define-job";
import { enqueue } from "../../jobs/enqueue";
import { recordOutcome } from "../../jobs/external-call";
import { newId } from "../../lib/ids";
import { STRIPE_CALL_BUDGET_MS } from "../processors/stripe";
import { isProcessorError, ProcessorError } from "../processors/types";
import { storeAccount } from "./store-account";
import { defaultAccounts, type AccountProcessor } from "./stripe-accounts";

/**
 * Stripe keeps an idempotency key for 24 hours: a creation not answered within 23 is no longer
 * asked (asked later, the same key could make a second account). It is `abandoned`.
 */
export const ACCOUNT_CREATION_LIMIT_MS = 23 * 3_600_000;

/** Payments that may still need the account: a deauthorize waits until none is left. */
const OPEN_PAYMENT_STATUSES = ["pending", "authorized", "capturing", "releasing", "refunding"];

/**
 * One Stripe call about a tenant's payment account (server/jobs/README.md, "Calls to other
 * systems"), as the payments journal does it: the attempt row (`payment_account_attempts`) and this
 * job, keyed by the attempt's id, are written in the request's transaction; the job calls Stripe
 * outside any transaction with the attempt's id as the Idempotency-Key and records the outcome
 * fenced by its lease; an uncertain outcome is asked again with the same key (its retries, then
 * the follow-up sweep's new jobs, `payment-sweeps.ts`). So a runner that dies between Stripe's
 * answer and the write is replaced by one that asks again and gets the same answer.
 * - `create`: a Standard connected account; its answer is stored as the tenant's account.
 * - `deauthorize`: the platform's access to a disconnected account ends (Connect OAuth), once no
 *   payment on the account is still open (a hold to capture or release, a call in flight); not
 *   at all when the account was connected again meanwhile.
 */
export const accountAttemptJob = defineJob({
  id: "payments.account-attempt",
  payload: z.object({ attempt_id: z.string() }),
  retry: {
    maxAttempts: 8,
    backoff: stepBackoff([1_000, 5_000, 30_000, 120_000, 600_000], 3_600_000),
  },
  leaseMs: leaseForCalls(1, STRIPE_CALL_BUDGET_MS),
  handler: ({ attempt_id }, ctx) => runAccountAttempt(attempt_id, ctx),
  // The last run's runner died: nobody knows what Stripe did.
  onFailed: async (tx, { attempt_id }, failure) => {
    await tx.paymentAccountAttempt.updateMany({
      where: { id: attempt_id, status: "pending" },
      data: { status: "unknown", error: { kind: "uncertain", code: null, message: failure.error } },
    });
  },
});

/** The job's id for a key: the attempt's id, or a follow-up's. */
export const accountAttemptJobId = (key: string) => `${accountAttemptJob.id}:${key}`;

/** Journals a call in `tx`: the attempt row and its job. Nothing is called here. */
export async function newAccountAttempt(
  tx: DbTx,
  input: {
    tenantId: number;
    kind: "create" | "deauthorize";
    accountRef: string | null;
    request: Prisma.InputJsonObject;
    createdBy: number | null;
  },
): Promise<PaymentAccountAttempt> {
  const id = newId("paa");
  const attempt = await tx.paymentAccountAttempt.create({
    data: { id, ...input, jobId: accountAttemptJobId(id) },
  });
  await enqueue(tx, accountAttemptJob, { attempt_id: id }, { key: id });
  return attempt;
}

const SETTLED = ["succeeded", "failed", "abandoned"];

export async function runAccountAttempt(
  attemptId: string,
  ctx: JobContext,
  accounts: AccountProcessor = defaultAccounts(),
): Promise<void> {
  const attempt = await ctx.db.paymentAccountAttempt.findUnique({ where: { id: attemptId } });
  if (!attempt || SETTLED.includes(attempt.status)) return;
  if (attempt.kind === "create") return create(attempt, ctx, accounts);
  return deauthorize(attempt, ctx, accounts);
}

async function create(attempt: PaymentAccountAttempt, ctx: JobContext, accounts: AccountProcessor) {
  if (ctx.now().getTime() - attempt.createdAt.getTime() > ACCOUNT_CREATION_LIMIT_MS) {
    await settle(ctx, attempt, {
      status: "abandoned",
      error: {
        kind: "uncertain",
        code: "unknown_outcome_23h",
        message:
          "Stripe did not answer within 23 hours; an account may exist at Stripe under this key.",
      },
    });
    return;
  }
  const request = attempt.request as { country?: string; email?: string | null };
  let answer: Awaited<ReturnType<AccountProcessor["createAccount"]>>;
  try {
    answer = await accounts.createAccount({
      idempotencyKey: attempt.id,
      country: request.country ?? "US",
      ...(request.email && { email: request.email }),
    });
  } catch (error) {
    await failed(ctx, attempt, error);
    return;
  }
  await recordOutcome(ctx.db, ctx, { ok: true }, async (tx) => {
    if (!(await stillOpen(tx, attempt.id))) return;
    const { stored } = await storeAccount(tx, {
      tenantId: attempt.tenantId,
      userId: attempt.createdBy,
      state: answer,
    });
    await tx.paymentAccountAttempt.update({
      where: { id: attempt.id },
      data: {
        status: "succeeded",
        accountRef: answer.accountRef,
        response: { account_ref: answer.accountRef, stored: stored !== null },
        error: Prisma.DbNull,
        completedAt: ctx.now(),
      },
    });
  });
}

async function deauthorize(
  attempt: PaymentAccountAttempt,
  ctx: JobContext,
  accounts: AccountProcessor,
) {
  const accountRef = attempt.accountRef ?? "";
  const again = await ctx.db.paymentAccount.findFirst({
    where: { accountRef, status: { not: "disconnected" } },
    select: { tenantId: true },
  });
  if (again) {
    await settle(ctx, attempt, {
      status: "failed",
      error: {
        kind: "invalid",
        code: "account_connected_again",
        message: "The account was connected again before its access was revoked: it is kept.",
      },
    });
    return;
  }
  const open = await ctx.db.payment.count({
    where: {
      tenantId: attempt.tenantId,
      service: "card",
      processorAccount: accountRef,
      status: { in: OPEN_PAYMENT_STATUSES },
    },
  });
  if (open > 0) {
    const message = `waiting until no payment on ${accountRef} is open (${open} are)`;
    await recordOutcome(ctx.db, ctx, { ok: false, error: message, retry: true }, async (tx) => {
      await tx.paymentAccountAttempt.updateMany({
        where: { id: attempt.id, status: "pending" },
        data: { error: { kind: "waiting", code: "open_payments", message } },
      });
    });
    return;
  }
  try {
    await accounts.deauthorize({ idempotencyKey: attempt.id, accountRef });
  } catch (error) {
    await failed(ctx, attempt, error);
    return;
  }
  await settle(ctx, attempt, { status: "succeeded", response: { deauthorized: true } });
}

/** A failed call: uncertain ones are asked again with the same key, the rest are final. */
async function failed(ctx: JobContext, attempt: PaymentAccountAttempt, error: unknown) {
  const e = isProcessorError(error) ? error : new ProcessorError("uncertain", String(error));
  if (e.kind !== "uncertain") {
    await settle(ctx, attempt, { status: "failed", error: e.toJSON() });
    return;
  }
  await recordOutcome(ctx.db, ctx, { ok: false, error: e.message, retry: true }, async (tx) => {
    await tx.paymentAccountAttempt.updateMany({
      where: { id: attempt.id, status: { in: ["pending", "unknown"] } },
      data: { status: "unknown", error: e.toJSON() },
    });
  });
}

/** Ends the attempt with `outcome` and the job with it, fenced by the lease. */
async function settle(
  ctx: JobContext,
  attempt: PaymentAccountAttempt,
  outcome: {
    status: "succeeded" | "failed" | "abandoned";
    error?: Prisma.InputJsonObject;
    response?: Prisma.InputJsonObject;
  },
) {
  await recordOutcome(ctx.db, ctx, { ok: true }, async (tx) => {
    await tx.paymentAccountAttempt.updateMany({
      where: { id: attempt.id, status: { in: ["pending", "unknown"] } },
      data: {
        status: outcome.status,
        error: outcome.error ?? Prisma.DbNull,
        ...(outcome.response && { response: outcome.response }),
        completedAt: ctx.now(),
      },
    });
  });
}

async function stillOpen(tx: DbTx, attemptId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ status: string }[]>`
    SELECT status FROM payment_account_attempts WHERE id = ${attemptId} FOR UPDATE`;
  return rows[0]?.status === "pending" || rows[0]?.status === "unknown";
}
