import type { DbTx } from "../db";
import { createOperation } from "../operations/create-operation";
import type { CapMeans, CapRequest } from "./operation-kinds/bill-cap";
import { appendBillEvent } from "./bill-events";
import { billInclude } from "./present-bill";

/**
 * How the live cap keeps stopping a charger until its transaction ends (server/bills/README.md,
 * "The cap holds"). Every call is a `bill.cap` operation (journaled, sent by the gateway holding
 * the socket, after the commit that wrote it); the cap's sweep (`cap-sweep.ts`, a cron job) decides
 * when the next one is due, from rows alone, so a gateway or runner restart loses nothing.
 */

/** How often the cap's sweep runs, once across all processes. */
export const CAP_SWEEP_MS = 5_000;
/** A charger that accepted the cap's call has this long to end the transaction before the next. */
export const CAP_CONFIRM_WAIT_MS = 60_000;
/** After a refusal or an unconfirmed call on the same connection: 10 s, doubling, at most 5 min. */
export const CAP_RETRY_BASE_MS = 10_000;
export const CAP_RETRY_MAX_MS = 300_000;

/**
 * The means of the cap's `attempt`-th call (1-based): the stop twice, then the connector taken
 * out of service (ChangeAvailability Inoperative), and so on while the transaction runs. A stop
 * is the one call that ends a transaction; availability is the escalation OCPP offers for a
 * charger that refuses or ignores it (not Reset, which would end every connector's transaction,
 * nor a 1.6 UnlockConnector, which releases the cable lock of a driver who may still be there).
 */
export const capMeans = (attempt: number): CapMeans =>
  attempt % 3 === 0 ? "availability" : "stop";

/**
 * Creates the cap's `attempt`-th operation for a bill's transaction in the caller's transaction,
 * which holds the bill's station and bill rows, and records it on the bill as the one to follow.
 * `gatewayId`: the station's live gateway when the caller read it in this transaction.
 */
export async function sendCapOperation(
  tx: DbTx,
  bill: { id: string; tenantId: number; stationId: number },
  transactionId: number,
  attempt: number,
  gatewayId?: string | null,
) {
  const means = capMeans(attempt);
  const request: CapRequest = { bill_id: bill.id, transaction_id: transactionId, means, attempt };
  const operation = await createOperation({
    db: tx,
    tenantId: bill.tenantId,
    stationId: bill.stationId,
    apiKeyId: null,
    scope: "bill.cap",
    action: means,
    request,
    ...(gatewayId !== undefined ? { gatewayId } : {}),
  });
  return operation;
}

/**
 * Flags a managed bill whose running cost passed its hold: `hold_exceeded_at` (read as
 * `needs_reconciliation`, `reconciliation_reason` `hold_exceeded`) and `bill.cap_exceeded`
 * (data: the bill, `transaction_ended`: false while the charger charges on without a confirmed
 * stop, true when the stop came and the whole session still cost more). Once per bill: a bill
 * already flagged is left as it is. The caller holds the bill's station and bill rows; the event
 * comes last (the tenant's counter).
 */
export async function flagHoldExceeded(
  tx: DbTx,
  billId: string,
  { transactionEnded }: { transactionEnded: boolean },
) {
  const { count } = await tx.bill.updateMany({
    where: { id: billId, holdExceededAt: null },
    data: { holdExceededAt: new Date() },
  });
  if (count === 0) return;
  const bill = await tx.bill.findUniqueOrThrow({ where: { id: billId }, include: billInclude });
  await appendBillEvent(tx, "bill.cap_exceeded", bill, { transaction_ended: transactionEnded });
}
