import type { UserCaller } from "../access/caller";
import { db as defaultDb, type Db } from "../db";
import { inTransaction } from "../db/retry";
import { DomainError } from "../errors";
import { newCall, runCallsNow } from "./billing-calls";
import { lockProfile, readProfile, requireOn } from "./profile";
import type { InvoicingMode } from "./stripe-billing";

/**
 * Staff (`platform-admin`) switch a team between charging the method on file (`automatic`) and
 * sending invoices to pay within 30 days (`send_invoice`). The Subscription follows through a
 * journaled `sync_subscription` (made, with its Customer, when the team has none and is switched
 * to invoices: invoicing is then the team's billing method, and lifts the project limit).
 */
export async function setInvoicing({
  teamId,
  caller,
  mode,
  db = defaultDb(),
}: {
  teamId: number;
  caller: UserCaller;
  mode: InvoicingMode;
  db?: Db;
}) {
  if (caller.platformRole !== "platform-admin")
    throw new DomainError("forbidden", "Only platform admins switch a team's invoicing.", {
      required_roles: ["platform-admin"],
    });
  if (!(await db.team.findUnique({ where: { id: teamId }, select: { id: true } })))
    throw new DomainError("not_found", "No such team.", { resource: "team" });
  requireOn();
  const calls = await inTransaction(db, async (tx) => {
    const row = await lockProfile(tx, teamId);
    if (row.invoicingMode === mode) return [];
    await tx.teamBilling.update({ where: { teamId }, data: { invoicingMode: mode } });
    if (mode === "automatic" && !row.subscriptionRef) return [];
    return [await newCall(tx, { teamId, kind: "sync_subscription", request: { mode } })];
  });
  await runCallsNow(db, calls);
  return readProfile(db, teamId);
}
