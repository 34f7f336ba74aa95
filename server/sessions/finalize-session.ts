import { finalizeBill } from "../bills/finalize-bill";
import type { FinalizeBillInput } from "../bills/bill-schema";
import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { loadSession } from "./session-facts";
import { finalUsageOf } from "./present-session";
import { requireOpen } from "./start-session";
import { lockSession, syncSessionStatus } from "./sync-status";

export type FinalizeSessionOptions = {
  tenantId: number;
  sessionId: string;
  input: FinalizeBillInput;
  db?: DbTx;
};

/**
 * Fixes the session's amount (spec section 4, external sessions rule 4) by finalizing its bill
 * exactly as a managed bill is finalized: `csms` sessions with the completed `transaction_id`
 * (the bill's token, station and connector, ended, valid times), `simulated` ones with
 * `energy_wh` only. The usage is fixed with it (its `transaction_id` is the bill's), the
 * connector is free for the next session, `bill.finalized` carries `session_id`. Again with the
 * same input it answers the same session; with another, 409 `bill_final`.
 */
export async function finalizeSession({
  tenantId,
  sessionId,
  input,
  db = defaultDb(),
}: FinalizeSessionOptions) {
  const locked = await lockSession(db, { tenantId, sessionId });
  if (!locked) throw notFound("charging session");
  if (locked.row.bill.status !== "final") requireOpen(locked);
  await finalizeBill({ tenantId, billId: locked.row.billId, input, bySession: true, db });
  const facts = (await loadSession(db, { id: sessionId }))!;
  if (!facts.row.finalUsage)
    await db.chargingSession.update({
      where: { id: sessionId },
      data: {
        finalUsage: finalUsageOf(facts),
        openConnectorId: null,
      },
    });
  return (await syncSessionStatus(db, sessionId))!;
}
