import type { DbTx } from "../../db";
import type { PaymentAccount } from "../../generated/prisma/client";
import type { AccountState } from "../processors/types";
import { stateColumns } from "./account-state";

export type StoreAccountResult =
  | { stored: PaymentAccount; liveAccountRef?: undefined }
  /** another account is connected to the tenant: nothing was written */
  | { stored: null; liveAccountRef: string };

/**
 * Writes the tenant's connected account in `tx`, under the tenant's row lock: a placeholder row
 * (disconnected, so it holds no account) makes sure there is a row to lock, then the decision is
 * made on what is stored now, since another request (or a creation's job) may have connected an
 * account while Stripe was answering. The same account again only takes Stripe's state. An
 * account another tenant holds live violates `payment_accounts_live_account_ref_key`.
 */
export async function storeAccount(
  tx: DbTx,
  { tenantId, userId, state }: { tenantId: number; userId: number | null; state: AccountState },
): Promise<StoreAccountResult> {
  await tx.$executeRaw`
    INSERT INTO payment_accounts (tenant_id, account_ref, status, disconnected_at, updated_at)
    VALUES (${tenantId}, ${state.accountRef}, 'disconnected', now(), now())
    ON CONFLICT (tenant_id) DO NOTHING`;
  const [locked] = await tx.$queryRaw<{ account_ref: string; status: string }[]>`
    SELECT account_ref, status FROM payment_accounts WHERE tenant_id = ${tenantId} FOR UPDATE`;
  const same = locked?.account_ref === state.accountRef && locked.status !== "disconnected";
  if (locked && locked.status !== "disconnected" && !same)
    return { stored: null, liveAccountRef: locked.account_ref };
  const stored = await tx.paymentAccount.update({
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
  return { stored };
}
