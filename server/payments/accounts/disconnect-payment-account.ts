import { db as defaultDb, type Db } from "../../db";
import { inTransaction } from "../../db/retry";
import { notFound } from "../../errors";
import { newAccountAttempt } from "./account-attempt-job";
import { readPaymentAccount } from "./present-payment-account";

export type DisconnectPaymentAccountOptions = { tenantId: number; userId?: number; db?: Db };

/**
 * Stops the service from charging on the tenant's connected account, and tells Stripe: in the
 * same transaction, a `deauthorize` call is journaled (`account-attempt-job.ts`), which ends the
 * platform's access to the account through Connect OAuth (the platform's
 * STRIPE_CONNECT_CLIENT_ID) once no payment on it is still open, and not at all if it is
 * connected again before that. Stripe's answer is the attempt's: `succeeded`, or `failed` with
 * Stripe's reason (no client id configured; Stripe refusing to deauthorize an account that is not
 * connected to the platform through OAuth, as an account the platform created itself may be).
 * Nothing is deleted or rejected at Stripe: the account stays its owner's, with its money. The
 * row stays as the record of who connected it and when it was disconnected; payments already made
 * on it stay readable through their own records. 404 `not_found` when none is connected.
 */
export async function disconnectPaymentAccount({
  tenantId,
  userId,
  db = defaultDb(),
}: DisconnectPaymentAccountOptions) {
  await inTransaction(db, async (tx) => {
    const [row] = await tx.$queryRaw<{ account_ref: string; status: string }[]>`
      SELECT account_ref, status FROM payment_accounts WHERE tenant_id = ${tenantId} FOR UPDATE`;
    if (!row || row.status === "disconnected") throw notFound("payment_account");
    await tx.paymentAccount.update({
      where: { tenantId },
      data: { status: "disconnected", chargesEnabled: false, disconnectedAt: new Date() },
    });
    await newAccountAttempt(tx, {
      tenantId,
      kind: "deauthorize",
      accountRef: row.account_ref,
      request: { account_ref: row.account_ref },
      createdBy: userId ?? null,
    });
  });
  return readPaymentAccount(db, tenantId);
}
