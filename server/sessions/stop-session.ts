import { db as defaultDb, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { createOperation } from "../operations/create-operation";
import { deriveStatus } from "./session-facts";
import { lockSession, syncSessionStatus } from "./sync-status";

export type StopSessionOptions = {
  tenantId: number;
  sessionId: string;
  apiKeyId: string | null;
  db?: DbTx;
};

/**
 * Stops a charging session (spec section 4, external sessions rules 3 and 7): an `external.stop`
 * operation for the session's own matched transaction, never any other (the session names no
 * transaction of the caller's choosing). Only a `charging` session stops (409
 * `session_not_charging`); while a stop is reserved (not refused) another is 409
 * `session_stop_reserved`, whatever its key: concurrent stops queue on the station's lock.
 */
export async function stopSession({
  tenantId,
  sessionId,
  apiKeyId,
  db = defaultDb(),
}: StopSessionOptions) {
  const facts = await lockSession(db, { tenantId, sessionId });
  if (!facts) throw notFound("charging session");
  const status = deriveStatus(facts);
  if (status === "stopping")
    throw new DomainError(
      "session_stop_reserved",
      "The session's stop is already reserved; read its stop_operation.",
      { session_id: sessionId, stop_operation_id: facts.stop!.id, status: facts.stop!.status },
    );
  const transaction = facts.row.bill.transaction;
  if (status !== "charging" || !transaction)
    throw new DomainError(
      "session_not_charging",
      "Only a charging session (its own transaction matched and running) can be stopped.",
      { session_id: sessionId, status },
    );
  const operation = await createOperation({
    db,
    tenantId,
    stationId: facts.row.stationId,
    apiKeyId,
    scope: "external.stop",
    action: "stop",
    request: { session_id: sessionId, transaction_id: transaction.id },
  });
  await db.chargingSession.update({
    where: { id: sessionId },
    data: { stopOperationId: operation.id },
  });
  await syncSessionStatus(db, sessionId);
  return operation;
}
