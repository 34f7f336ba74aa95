import type { DbTx } from "../db";
import type { Transaction } from "../generated/prisma/client";
import { isPricingError } from "../pricing";
import { appendBillEvent } from "./bill-events";
import { flagHoldExceeded } from "./cap-stop";
import type { StopReason } from "./bill-schema";
import { lockBillRow } from "./lock-bill";
import { billTariff, priceBillSession } from "./price-bill";
import { billInclude } from "./present-bill";
import { transactionSession } from "./transaction-session";

/**
 * A matched bill's transaction ended (the hook in `transactionEnded`, once per transaction): the
 * bill is `ended`, with its running cost for the whole session and why it stopped: `hold_limit`
 * when the live cap's stop was sent, `operator` for another remote stop, `charger` otherwise. The
 * event `bill.charging_stopped` (data: bill, reason) says so. Finalizing fixes the amount later.
 * A managed bill whose whole session cost more than its hold, and that the live cap has not
 * flagged yet, is flagged now (`bill.cap_exceeded`, `transaction_ended: true`): capturing it
 * would be refused (`bill_exceeds_hold`), so the operator hears it when charging stops.
 */
export async function billTransactionEnded(tx: DbTx, transaction: Transaction) {
  const found = await tx.bill.findUnique({
    where: { transactionId: transaction.id },
    select: { id: true },
  });
  if (!found) return;
  const bill = await lockBillRow(tx, found.id); // the station row is held by the message
  if (!bill || bill.status !== "charging") return;
  let running = bill.runningCostMinor;
  try {
    const session = await transactionSession(tx, transaction);
    running = priceBillSession(bill, await billTariff(tx, bill), session).adjusted.total_minor;
  } catch (error) {
    if (!isPricingError(error)) throw error; // finalizing reports it; the end is still recorded
  }
  const reason: StopReason =
    bill.stopReason === "hold_limit"
      ? "hold_limit"
      : transaction.stopReason === "Remote"
        ? "operator"
        : "charger";
  const ended = await tx.bill.update({
    where: { id: bill.id },
    data: {
      status: "ended",
      stopReason: reason,
      runningCostMinor: running,
      runningPricedAt: transaction.endedAt,
    },
    include: billInclude,
  });
  await appendBillEvent(tx, "bill.charging_stopped", ended, { reason });
  if (
    bill.settlementOwner !== "external" &&
    running !== null &&
    running > bill.holdMinor &&
    bill.holdExceededAt === null
  )
    await flagHoldExceeded(tx, bill.id, { transactionEnded: true });
}
