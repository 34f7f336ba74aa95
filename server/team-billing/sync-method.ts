import type { UserCaller } from "../access/caller";
import { db as defaultDb, type Db } from "../db";
import { inTransaction } from "../db/retry";
import { isProcessorError } from "../payments/processors/types";
import type { TeamBillingCall } from "../generated/prisma/client";
import { newCall, runCallsNow } from "./billing-calls";
import { lockProfile, readProfile, requireBillingManager, requireOn } from "./profile";
import { stripeKind, stripeNotAnswered, type MethodRoute } from "./setup-method";
import type { MethodSummary } from "./stripe-billing";

export type SyncStatus =
  "saved" | "open" | "declined" | "verification_pending" | "expired" | "none";

/**
 * Reads the setup page's result back from Stripe (the person's return to the console is no proof:
 * anyone can open the return URL) and stores what Stripe says:
 * - the SetupIntent `succeeded` with a payment method of the asked kind: it is on file (replacing
 *   the previous one of that kind, which is detached), made the Customer's default, and the
 *   Subscription to the metered price is made if the team has none (journaled calls);
 * - a declined card: `declined` with Stripe's reason; the page stays open for another card;
 * - a bank account left to microdeposits: `verification_pending` (nothing on file yet);
 * - the page expired: `expired` (start again); not finished yet: `open`; nothing started: `none`.
 */
export async function syncMethod({
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
  const { stripe } = requireOn();
  const row = await db.teamBilling.findUnique({ where: { teamId } });
  const setupRef = kind === "card" ? row?.cardSetupRef : row?.bankSetupRef;
  const answer = async (status: SyncStatus, error: unknown = null) => ({
    billing: await readProfile(db, teamId),
    setup: {
      kind,
      status,
      error: error as { code: string | null; decline_code: string | null; message: string } | null,
    },
  });
  if (!setupRef) return answer("none");
  const result = await stripe.readSetup(setupRef).catch((error: unknown) => {
    throw stripeNotAnswered(
      setupRef,
      "read_failed",
      isProcessorError(error) ? error.toJSON() : String(error),
    );
  });
  const method = result.method?.kind === stripeKind(kind) ? result.method : null;
  if (method) {
    const calls = await inTransaction(db, (tx) => saveMethod(tx, teamId, kind, setupRef, method));
    await runCallsNow(db, calls);
    return answer("saved");
  }
  if (result.session === "expired") {
    await db.teamBilling.updateMany({
      where: {
        teamId,
        ...(kind === "card" ? { cardSetupRef: setupRef } : { bankSetupRef: setupRef }),
      },
      data: kind === "card" ? { cardSetupRef: null } : { bankSetupRef: null },
    });
    return answer("expired");
  }
  if (result.intent === "requires_action") return answer("verification_pending");
  if (result.error) return answer("declined", result.error);
  return answer("open");
}

/** Under the profile's lock: stores the method, clears the setup, journals detach and default. */
async function saveMethod(
  tx: Parameters<Parameters<typeof inTransaction>[1]>[0],
  teamId: number,
  kind: MethodRoute,
  setupRef: string,
  method: MethodSummary,
): Promise<TeamBillingCall[]> {
  const row = await lockProfile(tx, teamId);
  const current = (kind === "card" ? row.card : row.bankAccount) as { ref: string } | null;
  const stillPending = (kind === "card" ? row.cardSetupRef : row.bankSetupRef) === setupRef;
  if (!stillPending && current?.ref === method.ref) return []; // a concurrent sync saved it
  const { kind: _kind, ...stored } = method;
  await tx.teamBilling.update({
    where: { teamId },
    data: {
      ...(kind === "card"
        ? { card: stored, ...(stillPending && { cardSetupRef: null }) }
        : { bankAccount: stored, ...(stillPending && { bankSetupRef: null }) }),
      defaultMethodRef: method.ref,
    },
  });
  const calls: TeamBillingCall[] = [];
  if (current && current.ref !== method.ref)
    calls.push(
      await newCall(tx, { teamId, kind: "detach", request: { payment_method: current.ref } }),
    );
  calls.push(
    await newCall(tx, { teamId, kind: "set_default", request: { payment_method: method.ref } }),
  );
  return calls;
}
