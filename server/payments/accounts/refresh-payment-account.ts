import { db as defaultDb, type Db } from "../../db";
import { notFound } from "../../errors";
import { isProcessorError } from "../processors/types";
import { stateColumns } from "./account-state";
import { readPaymentAccount } from "./present-payment-account";
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
 * Stripe's `account.updated` and `account.application.deauthorized` webhooks (which only name the
 * account: the state is read here). When Stripe answers that the platform cannot reach the account
 * any more (its access was revoked, or the account is gone), it is stored as `access_revoked`:
 * charges disabled, no card payment taken on it; a later read that succeeds (access granted
 * again) stores Stripe's state again.
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
  try {
    const state = await accounts.readAccount(row.accountRef);
    await db.paymentAccount.updateMany({
      where: { tenantId, accountRef: row.accountRef, status: { not: "disconnected" } },
      data: stateColumns(state),
    });
  } catch (error) {
    if (!revokedAccess(error)) throw accountCallFailure(error);
    await markAccessRevoked(db, tenantId, row.accountRef);
  }
  return readPaymentAccount(db, tenantId);
}

/**
 * Stripe's answer when the platform cannot reach a connected account: 403 `account_invalid`
 * ("does not have access to account … Application access may have been revoked"), a permission
 * error, or no such account. It says the same for a deleted account; either way no charge can be
 * made on it.
 */
export function revokedAccess(error: unknown): boolean {
  return (
    isProcessorError(error) &&
    error.kind !== "uncertain" &&
    (error.kind === "not_found" || error.httpStatus === 403 || error.code === "account_invalid")
  );
}

/** Marks the account, if still connected to the tenant, unable to charge. */
export async function markAccessRevoked(db: Db, tenantId: number, accountRef: string) {
  await db.paymentAccount.updateMany({
    where: { tenantId, accountRef, status: { not: "disconnected" } },
    data: { status: "access_revoked", chargesEnabled: false },
  });
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
