import type { DbTx } from "../db";
import { DomainError } from "../errors";
import type { BillRow } from "./present-bill";

/**
 * A `csms` bill starts only on a hold that covers it: its `card` payment (its `simulator` payment
 * on a workspace's sandbox tenant: server/sandbox/README.md) is `authorized` (the
 * processor confirmed the hold, by webhook or by reading the intent; a checkout redirect is never
 * proof), not flagged for reconciliation and not lapsed (spec section 4, managed paid charging
 * rules 3, 8 and 9). Anything else is 409 `payment_not_authorized`: no payment, a `pending` one
 * (incomplete authorization included), a simulator payment, or one already captured, released,
 * failed or expired.
 *
 * The seam between bills and payments runs this way: bills read the `payments` table; the payments
 * service (which writes it) imports bills, never the reverse. The payment row is read, not locked:
 * the caller holds the bill's lock, and the payments service takes the bill's lock before changing
 * a payment (station → bill → payment), so a release cannot slip in before the start commits.
 */
export async function requireFunding(tx: DbTx, bill: BillRow, now = new Date()) {
  const payment = await tx.payment.findUnique({ where: { billId: bill.id } });
  // a sandbox tenant's csms bills are funded by the simulator, and only by it
  const sandbox =
    (await tx.tenant.findUnique({ where: { id: bill.tenantId }, select: { kind: true } }))?.kind ===
    "sandbox";
  const reason = !payment
    ? "no_payment"
    : payment.service !== (sandbox ? "simulator" : "card")
      ? sandbox
        ? "card_payment"
        : "simulator_payment"
      : payment.status !== "authorized"
        ? "not_authorized"
        : payment.needsReconciliation
          ? "needs_reconciliation"
          : payment.expiresAt && payment.expiresAt <= now
            ? "hold_expired"
            : null;
  if (reason === null) return;
  throw new DomainError(
    "payment_not_authorized",
    "A csms bill starts only once its card payment is authorized (the hold is placed).",
    { reason, payment_id: payment?.id ?? null, payment_status: payment?.status ?? null },
  );
}
