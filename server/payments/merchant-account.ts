import type { DbTx } from "../db";

export type MerchantAccountState = {
  accountRef: string;
  status: string;
  chargesEnabled: boolean;
  /** card payments can be taken on it now */
  ready: boolean;
};

/**
 * The tenant's Stripe connected account, where its card payments are made (direct charges), as
 * the payment-account routes keep it. Payments only read it. Ready means `active` with charges
 * enabled; null when none was ever connected.
 */
export async function merchantAccountFor(
  tx: DbTx,
  tenantId: number,
): Promise<MerchantAccountState | null> {
  const account = await tx.paymentAccount.findUnique({ where: { tenantId } });
  if (!account) return null;
  return {
    accountRef: account.accountRef,
    status: account.status,
    chargesEnabled: account.chargesEnabled,
    ready: account.status === "active" && account.chargesEnabled,
  };
}
