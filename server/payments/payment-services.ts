import { db as defaultDb, type DbTx } from "../db";
import { merchantAccountFor } from "./merchant-account";
import { paymentProcessor } from "./processors";

/** Which payment services the tenant can use now, and why not. */
export async function listPaymentServices({
  tenantId,
  db = defaultDb(),
}: {
  tenantId: number;
  db?: DbTx;
}) {
  const card = paymentProcessor("card").availability();
  let cardReason: string | null = card.available ? null : card.reason;
  const sandbox = (await db.tenant.findUnique({ where: { id: tenantId }, select: { kind: true } }))
    ?.kind;
  if (sandbox === "sandbox") cardReason = "a sandbox takes simulator payments only";
  else if (card.available) {
    const account = await merchantAccountFor(db, tenantId);
    if (!account) cardReason = "the project has no Stripe account connected";
    else if (!account.ready)
      cardReason = `the project's Stripe account is ${account.status}${account.chargesEnabled ? "" : " and cannot take charges yet"}`;
  }
  return {
    data: [
      { service: "card" as const, available: cardReason === null, reason: cardReason },
      { service: "simulator" as const, available: true, reason: null },
    ],
  };
}
