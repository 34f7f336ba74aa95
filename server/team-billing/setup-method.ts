import type { UserCaller } from "../access/caller";
import { db as defaultDb, type Db } from "../db";
import { inTransaction } from "../db/retry";
import { env } from "../env";
import { DomainError } from "../errors";
import { newCall, runCallsNow } from "./billing-calls";
import { lockProfile, readProfile, requireBillingManager, requireOn } from "./profile";

export type MethodRoute = "card" | "bank_account";
export const stripeKind = (kind: MethodRoute) => (kind === "card" ? "card" : "us_bank_account");

export type StartSetupOptions = {
  teamId: number;
  caller: UserCaller;
  kind: MethodRoute;
  db?: Db;
  publicBaseUrl?: string;
};

/** Where Stripe sends the person back; the console's billing page then calls `/sync`. */
export const setupReturnUrls = (publicBaseUrl: string, teamId: number, kind: MethodRoute) => {
  const page = `${publicBaseUrl}/console/teams/${teamId}/billing`;
  return {
    success_url: `${page}?setup=${kind}&result=done`,
    cancel_url: `${page}?setup=${kind}&result=canceled`,
  };
};

/**
 * Starts putting a card (or a US bank account, verified instantly where Stripe offers it) on
 * file: a journaled `setup_session` call makes a Checkout Session in `setup` mode for the team's
 * Customer (made first if none), run at once and waited for up to 3 s. Nothing is on file until
 * `/sync` reads the result back from Stripe.
 */
export async function startSetup({
  teamId,
  caller,
  kind,
  db = defaultDb(),
  publicBaseUrl = env().publicBaseUrl,
}: StartSetupOptions) {
  await requireBillingManager(db, caller, teamId);
  requireOn();
  const call = await inTransaction(db, async (tx) => {
    await lockProfile(tx, teamId);
    return newCall(tx, {
      teamId,
      kind: "setup_session",
      request: { method: stripeKind(kind), ...setupReturnUrls(publicBaseUrl, teamId, kind) },
    });
  });
  const [settled] = await runCallsNow(db, [call]);
  const response = settled?.response as { url?: string; expires_at?: string } | null;
  if (settled?.status === "succeeded" && response?.url && response.expires_at) {
    return {
      billing: await readProfile(db, teamId),
      setup: { kind, url: response.url, expires_at: response.expires_at },
    };
  }
  throw stripeNotAnswered(settled?.id ?? call.id, settled?.status ?? "pending", settled?.error);
}

export function stripeNotAnswered(callId: string, status: string, error: unknown) {
  return new DomainError(
    "service_unavailable",
    status === "failed"
      ? "Stripe refused the call; see details.error."
      : "Stripe has not answered yet; ask again.",
    { processor: "stripe", call_id: callId, call_status: status, error: error ?? null },
    { retryAfterSeconds: 5 },
  );
}
