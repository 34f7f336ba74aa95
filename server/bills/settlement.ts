import type { DbTx } from "../db";
import { DomainError } from "../errors";
import type { BillRow } from "./present-bill";

/**
 * What the payments service may do with a bill's hold, decided by the bill (spec section 4, managed
 * paid charging rules 6 and 7). The payments service calls these holding the bill's lock
 * (`lockBill`), then locks and changes the payment.
 */

export type CaptureDecision =
  | { action: "capture"; amountMinor: number }
  /** a zero final bill releases its hold instead */
  | { action: "release" };

/**
 * Capture takes no amount: it captures the immutable final bill. Not final yet: 409
 * `bill_not_final`. Above the hold: 409 `bill_exceeds_hold`, left for reconciliation (the hold
 * cannot cover it; the live cap is there so this stays rare).
 */
export function captureDecision(bill: BillRow): CaptureDecision {
  if (bill.status !== "final" || bill.totalMinor === null)
    throw new DomainError("bill_not_final", "Only a final bill is captured; finalize it first.", {
      bill_id: bill.id,
      bill_status: bill.status,
    });
  if (bill.totalMinor === 0) return { action: "release" };
  if (bill.totalMinor > bill.holdMinor)
    throw new DomainError(
      "bill_exceeds_hold",
      "The final bill is above its hold; it needs reconciliation, not a capture.",
      { bill_id: bill.id, total_minor: bill.totalMinor, hold_minor: bill.holdMinor },
    );
  return { action: "capture", amountMinor: bill.totalMinor };
}

/**
 * Release frees an unused hold and never stops a charger, so it is refused (409 `hold_in_use`)
 * while the hold may still be owed: a start being dispatched, a matched transaction charging or
 * ended and not yet final, or a final bill with an amount (capture it). An `open` bill may be
 * released; so may one whose start was accepted (`starting`) or is `unknown` (`start_unknown`)
 * without a transaction yet, or the hold would be stuck when the driver never plugged in: a
 * transaction that appears later is still matched and billed, and then settled by reconciliation.
 * A zero final bill releases too (capture does the same).
 */
export async function requireHoldUnused(tx: DbTx, bill: BillRow) {
  const dispatching =
    bill.status === "starting" &&
    bill.startOperationId !== null &&
    (await tx.operation.count({ where: { id: bill.startOperationId, status: "dispatching" } })) > 0;
  const inUse =
    dispatching ||
    bill.status === "charging" ||
    bill.status === "ended" ||
    (bill.status === "final" && (bill.totalMinor ?? 0) > 0);
  if (inUse)
    throw new DomainError(
      "hold_in_use",
      "The hold is in use by this bill's session or its final amount; it cannot be released.",
      { bill_id: bill.id, bill_status: bill.status },
    );
}
