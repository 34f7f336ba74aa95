import type { UserCaller } from "../../access/caller";
import { db as defaultDb, type Db, type DbTx } from "../../db";
import { inTransaction } from "../../db/retry";
import { env } from "../../env";
import { DomainError } from "../../errors";
import { startJobNow, untilDone } from "../../jobs/run-now";
import { waitFor } from "../../jobs/wait";
import { isUniqueViolation } from "../../lib/unique-violation";
import type { PaymentAccount, PaymentAccountAttempt } from "../../generated/prisma/client";
import { ProcessorError, type AccountState, type ProcessorErrorKind } from "../processors/types";
import { accountAttemptJob, newAccountAttempt } from "./account-attempt-job";
import type { ConnectPaymentAccountInput } from "./account-schema";
import { readPaymentAccount } from "./present-payment-account";
import { markAccessRevoked, revokedAccess } from "./refresh-payment-account";
import { storeAccount } from "./store-account";
import {
  accountCallFailure,
  defaultAccounts,
  requireAvailable,
  type AccountProcessor,
} from "./stripe-accounts";

export type ConnectPaymentAccountOptions = {
  tenantId: number;
  caller: UserCaller;
  input: ConnectPaymentAccountInput;
  db?: Db;
  accounts?: AccountProcessor;
  publicBaseUrl?: string;
};

/** How long a connect request waits for the account's creation before answering 503. */
export const ACCOUNT_CREATION_WAIT_MS = 3_000;
/**
 * Stripe stores a 500 for its key and replays it for 24 hours: a creation it answered that way
 * is given up for a new one (a new key) by a request this long after it began, so such a 500
 * blocks connecting for minutes, not a day, at the price of a possible unused account at Stripe.
 * A creation that got no answer at all is always joined: asking again is how its account is found.
 */
export const STORED_500_GIVE_UP_MS = 10 * 60_000;

/** Where Stripe sends the person back: the console's payment-account page. */
export const onboardingUrls = (publicBaseUrl: string, tenantId: number) => {
  const page = `${publicBaseUrl}/console/t/${tenantId}/payment-account`;
  return { returnUrl: `${page}?onboarding=return`, refreshUrl: `${page}?onboarding=refresh` };
};

/**
 * Connects the tenant's Stripe account (a new Standard account, or `account_ref`, an existing one
 * the platform can reach) and answers a fresh onboarding link. Asking again while connected
 * answers a new link for the same account (links are single-use): it is how a person resumes
 * onboarding. Another `account_ref` while one is connected: 409 `payment_account_connected`
 * (disconnect first); an account another tenant has connected: 409 `payment_account_taken`.
 *
 * A new account is created by the journal (`account-attempt-job.ts`): the request writes a
 * `create` attempt and its job (one in flight per tenant: concurrent and repeated requests share
 * it), runs it at once and waits up to ACCOUNT_CREATION_WAIT_MS; the job stores the account
 * Stripe made under the attempt's key. Not answered by then: 503 `service_unavailable`, and
 * asking again continues the same creation, so Stripe makes one account however often it is
 * asked and whoever dies between its answer and our write. Reads and links are not journaled:
 * they change nothing at Stripe.
 */
export async function connectPaymentAccount({
  tenantId,
  caller,
  input,
  db = defaultDb(),
  accounts = defaultAccounts(),
  publicBaseUrl = env().publicBaseUrl,
}: ConnectPaymentAccountOptions) {
  requireAvailable(accounts);
  const current = await db.paymentAccount.findUnique({ where: { tenantId } });
  const live = current && current.status !== "disconnected" ? current : null;
  if (live && input.account_ref && input.account_ref !== live.accountRef) {
    throw connectedAlready(live.accountRef);
  }
  let row: PaymentAccount;
  if (live || input.account_ref) {
    const ref = live?.accountRef ?? input.account_ref ?? "";
    const state = await accounts.readAccount(ref).catch(async (error: unknown) => {
      if (live && revokedAccess(error)) await markAccessRevoked(db, tenantId, ref);
      throw accountCallFailure(error, live ? undefined : "account_ref");
    });
    row = await storeRead(db, tenantId, caller.userId, state);
  } else {
    row = await created(db, tenantId, caller, input.country ?? "US");
  }
  const link = await accounts
    .onboardingLink({ accountRef: row.accountRef, ...onboardingUrls(publicBaseUrl, tenantId) })
    .catch((error: unknown) => {
      throw accountCallFailure(error);
    });
  return {
    payment_account: await readPaymentAccount(db, tenantId),
    onboarding: { url: link.url, expires_at: link.expiresAt.toISOString() },
  };
}

/** Stores an account read from Stripe (the one connected, or `account_ref`). */
async function storeRead(db: Db, tenantId: number, userId: number, state: AccountState) {
  try {
    const result = await inTransaction(db, (tx) => storeAccount(tx, { tenantId, userId, state }));
    if (!result.stored) throw connectedAlready(result.liveAccountRef);
    return result.stored;
  } catch (error) {
    if (isUniqueViolation(error, "account_ref")) {
      throw new DomainError(
        "payment_account_taken",
        "This Stripe account is connected to another project; disconnect it there first.",
        { account_ref: state.accountRef },
      );
    }
    throw error;
  }
}

/** A request for a new account that found one connected meanwhile: it links that one instead. */
class ConnectedMeanwhile extends Error {}

/**
 * The tenant's account creation, journaled: joins the one in flight or begins one, runs it now
 * (a runner that holds it keeps it) and waits; answers the account it stored.
 */
async function created(db: Db, tenantId: number, caller: UserCaller, country: string) {
  const deadline = Date.now() + ACCOUNT_CREATION_WAIT_MS;
  let attempt: PaymentAccountAttempt;
  try {
    attempt = await inTransaction(db, (tx) => beginCreation(tx, tenantId, caller, country));
  } catch (error) {
    if (!(error instanceof ConnectedMeanwhile)) throw error;
    const row = await db.paymentAccount.findUniqueOrThrow({ where: { tenantId } });
    return row;
  }
  const run = startJobNow({ db, definitions: [accountAttemptJob], jobId: attempt.jobId });
  await untilDone([run], deadline);
  // A runner may have claimed the job first (then our run ends at once, having done nothing):
  // wait for what it records, within the same deadline.
  const settled = await waitFor(
    () => db.paymentAccountAttempt.findUniqueOrThrow({ where: { id: attempt.id } }),
    (a) => a.status !== "pending",
    Math.max(0, deadline - Date.now()),
  );
  if (settled.status === "succeeded") {
    const row = await db.paymentAccount.findUnique({ where: { tenantId } });
    if (row && row.status !== "disconnected" && row.accountRef === settled.accountRef) return row;
    if (row && row.status !== "disconnected") throw connectedAlready(row.accountRef);
  }
  if (settled.status === "failed") throw accountCallFailure(journaledError(settled), "country");
  throw new DomainError(
    "service_unavailable",
    "Stripe has not confirmed the new account yet; ask again to continue the same creation.",
    { processor: "stripe", attempt_id: settled.id, attempt_status: settled.status },
    { retryAfterSeconds: 5 },
  );
}

/**
 * In `tx`: the tenant's creation in flight, or a new one (attempt and job). The insert comes
 * first and the live check after it, so that a creation that stored its account just before is
 * seen (its attempt left the in-flight index in the same commit), and this one is rolled back.
 */
async function beginCreation(tx: DbTx, tenantId: number, caller: UserCaller, country: string) {
  const inFlight = () =>
    tx.paymentAccountAttempt.findFirst({
      where: { tenantId, kind: "create", status: { in: ["pending", "unknown"] } },
    });
  let attempt = await inFlight();
  if (attempt && storedServerError(attempt)) {
    await tx.paymentAccountAttempt.update({
      where: { id: attempt.id },
      data: {
        status: "abandoned",
        completedAt: new Date(),
        error: {
          ...(attempt.error as Record<string, unknown>),
          message:
            "Stripe answered 500 for this key, which it replays for 24 hours: a new creation was begun.",
        },
      },
    });
    attempt = null;
  }
  if (!attempt) {
    await tx.$executeRaw`SAVEPOINT begin_creation`;
    try {
      attempt = await newAccountAttempt(tx, {
        tenantId,
        kind: "create",
        accountRef: null,
        request: { country, email: caller.email },
        createdBy: caller.userId,
      });
      await tx.$executeRaw`RELEASE SAVEPOINT begin_creation`;
    } catch (error) {
      // a concurrent request began one first (one creation in flight per tenant): join it
      if (!isUniqueViolation(error)) throw error;
      await tx.$executeRaw`ROLLBACK TO SAVEPOINT begin_creation`;
      attempt = await inFlight();
      if (!attempt) throw error;
    }
  }
  const live = await tx.paymentAccount.findFirst({
    where: { tenantId, status: { not: "disconnected" } },
  });
  if (live) throw new ConnectedMeanwhile();
  return attempt;
}

/** A creation Stripe answered with a 5xx (stored for its key), begun long enough ago. */
function storedServerError(attempt: PaymentAccountAttempt): boolean {
  const e = attempt.error as { http_status?: unknown } | null;
  return (
    attempt.status === "unknown" &&
    typeof e?.http_status === "number" &&
    e.http_status >= 500 &&
    Date.now() - attempt.createdAt.getTime() >= STORED_500_GIVE_UP_MS
  );
}

/** The refusal a failed creation recorded, as the processor error it was. */
function journaledError(attempt: PaymentAccountAttempt): ProcessorError {
  const e = (attempt.error ?? {}) as { kind?: string; code?: string | null; message?: string };
  return new ProcessorError(
    (e.kind ?? "invalid") as ProcessorErrorKind,
    e.message ?? "Stripe refused it",
    { code: e.code ?? null },
  );
}

const connectedAlready = (accountRef: string) =>
  new DomainError(
    "payment_account_connected",
    "Another Stripe account is connected to this project; disconnect it first.",
    { account_ref: accountRef },
  );
