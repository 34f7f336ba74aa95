import { db as defaultDb, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { presentSession } from "./present-session";
import { deriveStatus, startReserved } from "./session-facts";
import { lockSession, syncSessionStatus } from "./sync-status";

export type CancelSessionOptions = { tenantId: number; sessionId: string; db?: DbTx };

/**
 * Cancels a session that holds no start reservation (spec section 4, external sessions rule 6):
 * never started, or its start was refused. It frees the connector and closes its bill as
 * `canceled` (it was `open`: no start reserved, no transaction matched), so the bill no longer
 * reads as open with a hold; the service moves no money (the application holds the funds and
 * releases them itself). A canceled session answers as it is; a final one is 409
 * `session_closed`; one with a start reserved 409 `session_start_reserved`. Locks: station,
 * bill, session (`lockSession`).
 */
export async function cancelSession({
  tenantId,
  sessionId,
  db = defaultDb(),
}: CancelSessionOptions) {
  const facts = await lockSession(db, { tenantId, sessionId });
  if (!facts) throw notFound("charging session");
  const status = deriveStatus(facts);
  if (status === "canceled") return presentSession(facts);
  if (status === "final")
    throw new DomainError("session_closed", "The session is final.", {
      session_id: sessionId,
      status,
    });
  if (startReserved(facts))
    throw new DomainError(
      "session_start_reserved",
      "The session's start is reserved; only a session without one can be canceled.",
      { session_id: sessionId, start_operation_id: facts.start!.id, status: facts.start!.status },
    );
  await db.chargingSession.update({
    where: { id: sessionId },
    data: { canceledAt: new Date(), openConnectorId: null },
  });
  // Without a start reserved the bill is `open` (a refused start put it back), never matched.
  await db.bill.update({
    where: { id: facts.row.billId, status: "open" },
    data: { status: "canceled" },
  });
  return (await syncSessionStatus(db, sessionId))!;
}
