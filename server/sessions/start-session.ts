import { issueToken } from "../charging/authorize-token";
import { db as defaultDb, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { createOperation } from "../operations/create-operation";
import { deriveStatus, startReserved, type SessionFacts } from "./session-facts";
import { lockSession, syncSessionStatus } from "./sync-status";

export type StartSessionOptions = {
  tenantId: number;
  sessionId: string;
  /** who asked, recorded on the operation */
  apiKeyId: string | null;
  db?: DbTx;
};

/** 409 when a closed session is asked to act. */
export function requireOpen(facts: SessionFacts) {
  const status = deriveStatus(facts);
  if (status === "final" || status === "canceled")
    throw new DomainError("session_closed", `The session is ${status}.`, {
      session_id: facts.row.id,
      status,
    });
}

/**
 * Starts a `csms` session on its connector (spec section 4, external sessions rules 2 and 7): the
 * application has confirmed the funding (`funding_confirmed: true`, checked by the route's
 * schema), and the service sends the start with the session's bill token through an
 * `external.start` operation. The start is a reservation: while one is held (an operation that
 * was not refused), another start is 409 `session_start_reserved`, whatever its key. Concurrent
 * starts queue on the station's lock, so exactly one dispatches. A refused start (offline
 * station, the charger said no) frees the reservation and reads `funding_confirmed: false` (the
 * kind's `onSettled`, or here for a refusal decided at creation): start again with a new key.
 */
export async function startSession({
  tenantId,
  sessionId,
  apiKeyId,
  db = defaultDb(),
}: StartSessionOptions) {
  const facts = await lockSession(db, { tenantId, sessionId });
  if (!facts) throw notFound("charging session");
  const { row } = facts;
  if (row.source === "simulated")
    throw new DomainError(
      "session_simulated",
      "A simulated session is never started: finalize it with energy_wh.",
      { session_id: row.id },
    );
  requireOpen(facts);
  if (startReserved(facts))
    throw new DomainError(
      "session_start_reserved",
      "The session's start is already reserved; read its start_operation (never start again under a new key).",
      { session_id: row.id, start_operation_id: facts.start!.id, status: facts.start!.status },
    );
  await db.bill.update({ where: { id: row.billId }, data: { status: "starting" } });
  const operation = await createOperation({
    db,
    tenantId,
    stationId: row.stationId,
    apiKeyId,
    scope: "external.start",
    action: "start",
    request: { session_id: row.id, bill_id: row.billId, connector_id: row.connectorId },
  });
  await db.bill.update({ where: { id: row.billId }, data: { startOperationId: operation.id } });
  await db.chargingSession.update({
    where: { id: row.id },
    data: { fundingConfirmed: operation.status !== "rejected", startOperationId: operation.id },
  });
  // The token the charger will present is the service's own, like a bill's start.
  if (operation.status === "dispatching")
    await issueToken(db, tenantId, row.bill.chargingToken, "bill");
  await syncSessionStatus(db, row.id);
  return operation;
}
