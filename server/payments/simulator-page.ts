import { db as defaultDb, type Db } from "../db";
import { inTransaction } from "../db/retry";
import { runJobNow } from "../jobs/run-now";
import { log } from "../log";
import { enqueueProcessorEvent, processorEventJob } from "./processor-event-job";
import { simulatorProcessor } from "./processors";
import type { SimulatedDecline } from "./processors/simulator-checkout";
import { isProcessorError } from "./processors/types";
import { driverBranding, type DriverBranding } from "../branding/branding";

/**
 * What the return page (`/pay/return?payment=<id>`, where a checkout sends the payer when the
 * payment named no return URL) shows of the payment's team: its branding; null for an unknown
 * payment (the page then shows the service's own).
 */
export async function returnPageBranding(
  paymentId: string | undefined,
  db: Db = defaultDb(),
): Promise<DriverBranding | null> {
  if (!paymentId || !/^pay_[0-9A-Za-z]{1,40}$/.test(paymentId)) return null;
  const payment = await db.payment.findUnique({
    where: { id: paymentId },
    select: { tenantId: true },
  });
  return payment ? driverBranding(db, payment.tenantId) : null;
}

export type SimulatorCheckoutView = {
  /** the team's branding (PUT /v1/branding): its display name, or the project's name */
  projectName: string;
  /** `#rrggbb` and the text colour that reads on it, validated; null: the page's own colours */
  accent: string | null;
  accentText: string | null;
  /** an https image URL, or null */
  logoUrl: string | null;
  amountMinor: number;
  currency: string;
  description: string;
  status: "open" | "complete" | "expired";
  lastError: string | null;
  /** 3-D Secure was left unfinished: nothing is held, approving finishes it */
  awaitingAuthentication: boolean;
};

/** What the simulator's hosted page shows for a checkout token; null for an unknown one. */
export async function simulatorCheckoutView(
  token: string,
  db: Db = defaultDb(),
): Promise<SimulatorCheckoutView | null> {
  const page = await simulatorProcessor().checkoutPage(token);
  if (!page) return null;
  const brand = await driverBranding(db, page.tenantId);
  return {
    projectName: brand?.displayName ?? "Charge Cloud",
    accent: brand?.accent ?? null,
    accentText: brand?.accentText ?? null,
    logoUrl: brand?.logoUrl ?? null,
    amountMinor: page.amountMinor,
    currency: page.currency.toUpperCase(),
    description: page.description,
    status: page.status,
    lastError: page.lastError?.message ?? null,
    awaitingAuthentication: page.awaitingAuthentication,
  };
}

export type SimulatorAction = "approve" | "decline" | "abandon" | "unfinished";

/**
 * The payer's action on the simulator's page, like a processor's test card: approve, decline
 * (insufficient funds), abandon, or leave 3-D Secure unfinished (sent back to the return URL
 * with nothing held: the redirect is no proof). Then the simulator's "webhook": the same processor-event job
 * Stripe's events run, which reads the intent and moves the payment (never the page's word).
 * Returns where the payer goes next (the payment's return URL), or null to show the page again.
 */
export async function actOnSimulatorCheckout(
  token: string,
  action: SimulatorAction,
  db: Db = defaultDb(),
): Promise<string | null> {
  const simulator = simulatorProcessor();
  let result;
  try {
    result =
      action === "approve"
        ? await simulator.approveCheckout(token)
        : action === "decline"
          ? await simulator.declineCheckout(token, "insufficient_funds" satisfies SimulatedDecline)
          : action === "abandon"
            ? await simulator.abandonCheckout(token)
            : await simulator.leaveCheckoutUnfinished(token);
  } catch (error) {
    if (isProcessorError(error) && error.kind !== "uncertain") return null;
    throw error;
  }
  const ref = result.page.checkoutRef;
  const jobId = await inTransaction(db, (tx) =>
    enqueueProcessorEvent(
      tx,
      { service: "simulator", account: null, checkout_ref: ref, intent_ref: ref, event_id: null },
      `simulator:${ref}:${action}:${Date.now()}`,
    ),
  );
  await runJobNow({ db, definitions: [processorEventJob], jobId }).catch((error: unknown) =>
    log.warn("simulator event fast path failed", { checkout_ref: ref, error }),
  );
  return result.redirectUrl;
}
