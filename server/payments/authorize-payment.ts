import { db as defaultDb, type DbTx } from "../db";
import { HOLD_MAX_MINOR, HOLD_MIN_MINOR } from "../bills/holds";
import { requireManagedSettlement } from "../bills/external-settlement";
import { lockBill } from "../bills/lock-bill";
import { DomainError, fieldError } from "../errors";
import { newId } from "../lib/ids";
import { merchantAccountFor } from "./merchant-account";
import { newAttempt } from "./new-attempt";
import type { AuthorizePaymentInput } from "./payment-schema";
import { paymentProcessor } from "./processors";
import { paymentInclude, presentPayment } from "./present-payment";

/** A workspace's sandbox tenant (server/sandbox/README.md): its bills settle by the simulator. */
export async function isSandboxTenant(db: DbTx, tenantId: number): Promise<boolean> {
  const tenant = await db.tenant.findUnique({ where: { id: tenantId }, select: { kind: true } });
  return tenant?.kind === "sandbox";
}

export type AuthorizePaymentOptions = {
  tenantId: number;
  actorId: string;
  input: AuthorizePaymentInput;
  db?: DbTx;
};

/**
 * Opens the bill's one payment (spec section 4, managed paid charging rules 2 and 10): `pending`,
 * with the hosted checkout the payer completes (`next_action.redirect`) once the authorize
 * attempt's job has created it. Under the bill's lock, so two requests for one bill, whatever
 * their keys or services, make one payment; the second is 409 `payment_exists`. A project's
 * `csms` bill is paid by card only (409 `simulator_not_allowed`); a sandbox tenant's bills by the
 * simulator only (card: 409 `card_not_in_sandbox`; server/sandbox/README.md); card needs the platform's Stripe keys (409
 * `payment_service_unavailable`) and the project's connected account, active with charges
 * enabled (409 `payment_account_not_ready`).
 */
export async function authorizePayment({
  tenantId,
  actorId,
  input,
  db = defaultDb(),
}: AuthorizePaymentOptions) {
  const bill = await lockBill(db, { tenantId, billId: input.bill_id });
  if (!bill)
    throw fieldError("validation_failed", "No such bill in this project.", [
      { field: "bill_id", message: "no such bill in this project" },
    ]);
  // An external session's bill never has a payment, so capture, release and refund need no check.
  requireManagedSettlement(bill);
  if (bill.payment)
    throw new DomainError("payment_exists", "This bill already has its payment.", {
      bill_id: bill.id,
      payment_id: bill.payment.id,
      payment_status: bill.payment.status,
    });
  const sandbox = await isSandboxTenant(db, tenantId);
  if (input.service === "simulator" && bill.source === "csms" && !sandbox)
    throw new DomainError(
      "simulator_not_allowed",
      "Simulator payments settle simulated bills only; a csms bill is paid by card.",
      { bill_id: bill.id },
    );
  if (input.service === "card" && sandbox)
    throw new DomainError(
      "card_not_in_sandbox",
      "A sandbox takes simulator payments only (no real card is charged there): authorize with service simulator.",
      { bill_id: bill.id },
    );
  if (bill.holdMinor < HOLD_MIN_MINOR || bill.holdMinor > HOLD_MAX_MINOR)
    throw fieldError("validation_failed", "Holds are $0.50 to $100.", [
      {
        field: "bill_id",
        message: `the bill's hold is outside ${HOLD_MIN_MINOR}..${HOLD_MAX_MINOR}`,
      },
    ]);
  const availability = paymentProcessor(input.service).availability();
  if (!availability.available)
    throw new DomainError(
      "payment_service_unavailable",
      `The ${input.service} payment service is not available: ${availability.reason}`,
      { service: input.service, reason: availability.reason },
    );
  let accountRef: string | null = null;
  if (input.service === "card") {
    const account = await merchantAccountFor(db, tenantId);
    if (!account?.ready)
      throw new DomainError(
        "payment_account_not_ready",
        "Card payments need the project's Stripe account connected, active, with charges enabled.",
        {
          account_status: account?.status ?? "not_connected",
          charges_enabled: account?.chargesEnabled ?? false,
        },
      );
    accountRef = account.accountRef;
  }
  const payment = await db.payment.create({
    data: {
      id: newId("pay"),
      tenantId,
      billId: bill.id,
      service: input.service,
      status: "pending",
      amountMinor: bill.holdMinor,
      processorAccount: accountRef,
      returnUrl: input.return_url ?? null,
      createdBy: actorId,
    },
  });
  await newAttempt(db, payment.id, "authorize", bill.holdMinor, {
    currency: "usd",
    return_url: input.return_url ?? null,
  });
  return presentPayment(
    await db.payment.findUniqueOrThrow({ where: { id: payment.id }, include: paymentInclude }),
  );
}
