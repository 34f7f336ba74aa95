import type { UserCaller } from "../../access/caller";
import { db as defaultDb, type Db } from "../../db";
import { inTransaction } from "../../db/retry";
import { env } from "../../env";
import { DomainError } from "../../errors";
import { isUniqueViolation } from "../../lib/unique-violation";
import type { AccountState } from "../processors/types";
import type { ConnectPaymentAccountInput } from "./account-schema";
import { stateColumns } from "./account-state";
import { presentPaymentAccount } from "./present-payment-account";
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
 * Stripe is called outside any transaction. A new account is created under an idempotency key
 * fixed per tenant, connection and ten minutes (`creationKey`), so concurrent or repeated requests
 * get the same account from Stripe rather than one each.
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

  let state: AccountState;
  if (live || input.account_ref) {
    const ref = live?.accountRef ?? input.account_ref ?? "";
    state = await accounts.readAccount(ref).catch((error: unknown) => {
      throw accountCallFailure(error, live ? undefined : "account_ref");
    });
  } else {
    const { accountRef } = await accounts
      .createAccount({
        idempotencyKey: creationKey(tenantId, current?.disconnectedAt ?? null),
        country: input.country ?? "US",
        email: caller.email,
      })
      .catch((error: unknown) => {
        throw accountCallFailure(error, "country");
      });
    state = await accounts.readAccount(accountRef).catch((error: unknown) => {
      throw accountCallFailure(error);
    });
  }

  const row = await store(db, tenantId, caller.userId, state);
  const link = await accounts
    .onboardingLink({ accountRef: row.accountRef, ...onboardingUrls(publicBaseUrl, tenantId) })
    .catch((error: unknown) => {
      throw accountCallFailure(error);
    });
  return {
    payment_account: presentPaymentAccount(tenantId, row),
    onboarding: { url: link.url, expires_at: link.expiresAt.toISOString() },
  };
}

/**
 * Writes the account under the tenant's row lock: a placeholder row (disconnected, so it holds
 * no account) makes sure there is a row to lock, then the decision is made again on what is
 * stored now, since another request may have connected an account while Stripe was answering.
 */
async function store(db: Db, tenantId: number, userId: number, state: AccountState) {
  try {
    return await inTransaction(db, async (tx) => {
      await tx.$executeRaw`
        INSERT INTO payment_accounts (tenant_id, account_ref, status, disconnected_at, updated_at)
        VALUES (${tenantId}, ${state.accountRef}, 'disconnected', now(), now())
        ON CONFLICT (tenant_id) DO NOTHING`;
      const [locked] = await tx.$queryRaw<{ account_ref: string; status: string }[]>`
        SELECT account_ref, status FROM payment_accounts WHERE tenant_id = ${tenantId} FOR UPDATE`;
      const same = locked?.account_ref === state.accountRef && locked.status !== "disconnected";
      if (locked && locked.status !== "disconnected" && !same) {
        throw connectedAlready(locked.account_ref);
      }
      return tx.paymentAccount.update({
        where: { tenantId },
        data: {
          ...stateColumns(state),
          ...(!same && {
            accountRef: state.accountRef,
            provider: "stripe",
            connectedByUserId: userId,
            connectedAt: new Date(),
            disconnectedAt: null,
          }),
        },
      });
    });
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

/**
 * The key a new account is created under: the tenant, which connection (the last disconnect) and
 * a ten-minute window. Stripe replays a stored 500 for a key for 24 hours and has no read by key,
 * so a key that never changed could block connecting for a day; the window bounds that, at the
 * price of a rare second (unused, never stored) account when two requests straddle its edge.
 */
function creationKey(tenantId: number, disconnectedAt: Date | null): string {
  const window = Math.floor(Date.now() / 600_000);
  return `payment-account-${tenantId}-${disconnectedAt?.getTime() ?? 0}-${window}`;
}

const connectedAlready = (accountRef: string) =>
  new DomainError(
    "payment_account_connected",
    "Another Stripe account is connected to this project; disconnect it first.",
    { account_ref: accountRef },
  );
