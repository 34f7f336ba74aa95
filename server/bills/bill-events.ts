import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import { presentBill, type BillRow } from "./present-bill";

/** Bill event types; billing events are read and subscribed with `billing:read` too. */
export type BillEventType = "bill.finalized" | "bill.charging_stopped" | "bill.cap_exceeded";

/**
 * Appends a bill event with the bill as /v1 shows it (never its charging token), in the caller's
 * transaction: after the bill's station and bill rows, the tenant's event counter comes last.
 */
export async function appendBillEvent(
  tx: DbTx,
  type: BillEventType,
  bill: BillRow,
  extra: Record<string, unknown> = {},
) {
  const presented = presentBill(bill);
  await appendEvent({
    db: tx,
    tenantId: bill.tenantId,
    type,
    resourceId: bill.id,
    data: { bill: presented, ...extra },
  });
  return presented;
}
