import { db as defaultDb, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { presentSession } from "./present-session";
import { deriveStatus, startReserved } from "./session-facts";
import { lockSession, syncSessionStatus } from "./sync-status";

export type CancelSessionOptions = { tenantId: number; sessionId: string; db?: DbTx };

/**
 * Cancels a session that holds no start reservation (spec section 4, external sessions rule 6):
 * never started, or its start was refused. It frees the connector and releases no funds (the
 * application holds them). A canceled session answers as it is; a final one is 409
 * `session_closed`; one with a start reserved 409 `session_start_reserved`.
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
  return (await syncSessionStatus(db, sessionId))!;
}
