import { db as defaultDb, type Db } from "../../db";
import { notFound } from "../../errors";
import { stateColumns } from "./account-state";
import { presentPaymentAccount } from "./present-payment-account";
import {
  accountCallFailure,
  defaultAccounts,
  requireAvailable,
  type AccountProcessor,
} from "./stripe-accounts";

export type RefreshPaymentAccountOptions = {
  tenantId: number;
  db?: Db;
  accounts?: AccountProcessor;
};

/**
 * Reads the tenant's connected account from Stripe and stores what Stripe says (charges enabled,
 * details submitted, requirements due, and the status they give). The one way the stored state
 * follows Stripe's: POST …/payment-account/refresh, the console's return from onboarding, and
 * Stripe's `account.updated` webhook (which only names the account: the state is read here).
 *
 * Stripe is called outside any transaction; the write then applies only to the same account
 * still connected, so a disconnect or another account connected meanwhile is never overwritten.
 * 404 `not_found` when no account is connected.
 */
export async function refreshPaymentAccount({
  tenantId,
  db = defaultDb(),
  accounts = defaultAccounts(),
}: RefreshPaymentAccountOptions) {
  const row = await db.paymentAccount.findUnique({ where: { tenantId } });
  if (!row || row.status === "disconnected") throw notFound("payment_account");
  requireAvailable(accounts);
  const state = await accounts.readAccount(row.accountRef).catch((error: unknown) => {
    throw accountCallFailure(error);
  });
  await db.paymentAccount.updateMany({
    where: { tenantId, accountRef: row.accountRef, status: { not: "disconnected" } },
    data: stateColumns(state),
  });
  return presentPaymentAccount(
    tenantId,
    await db.paymentAccount.findUnique({ where: { tenantId } }),
  );
}

/** The tenant an account belongs to while connected (for events that name only the account). */
export async function tenantOfPaymentAccount(
  accountRef: string,
  db: Db = defaultDb(),
): Promise<number | null> {
  const row = await db.paymentAccount.findFirst({
    where: { accountRef, status: { not: "disconnected" } },
    select: { tenantId: true },
  });
  return row?.tenantId ?? null;
}
