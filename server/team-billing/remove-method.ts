import type { UserCaller } from "../access/caller";
import { db as defaultDb, type Db } from "../db";
import { inTransaction } from "../db/retry";
import { DomainError } from "../errors";
import { Prisma, type TeamBillingCall } from "../generated/prisma/client";
import { newCall, runCallsNow } from "./billing-calls";
import { lockProfile, readProfile, requireBillingManager, requireOn } from "./profile";
import type { MethodRoute } from "./setup-method";

/**
 * Takes the card (or bank account) off file: it is detached from the Customer (a journaled
 * `detach`), and when it was the default the other one on file, if any, becomes the default
 * (`set_default`). 404 when none is on file. Invoices then wait for another method (automatic
 * collection fails without one, and the grace period runs).
 */
export async function removeMethod({
  teamId,
  caller,
  kind,
  db = defaultDb(),
}: {
  teamId: number;
  caller: UserCaller;
  kind: MethodRoute;
  db?: Db;
}) {
  await requireBillingManager(db, caller, teamId);
  requireOn();
  const calls = await inTransaction(db, async (tx) => {
    const row = await lockProfile(tx, teamId);
    const current = (kind === "card" ? row.card : row.bankAccount) as { ref: string } | null;
    const other = (kind === "card" ? row.bankAccount : row.card) as { ref: string } | null;
    if (!current)
      throw new DomainError(
        "not_found",
        `No ${kind === "card" ? "card" : "bank account"} is on file.`,
        {
          resource: kind,
        },
      );
    const wasDefault = row.defaultMethodRef === current.ref;
    await tx.teamBilling.update({
      where: { teamId },
      data: {
        ...(kind === "card" ? { card: Prisma.DbNull } : { bankAccount: Prisma.DbNull }),
        ...(wasDefault && { defaultMethodRef: other?.ref ?? null }),
      },
    });
    const made: TeamBillingCall[] = [
      await newCall(tx, { teamId, kind: "detach", request: { payment_method: current.ref } }),
    ];
    if (wasDefault && other)
      made.push(
        await newCall(tx, { teamId, kind: "set_default", request: { payment_method: other.ref } }),
      );
    return made;
  });
  await runCallsNow(db, calls);
  return readProfile(db, teamId);
}
