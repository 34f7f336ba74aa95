import type { Db, DbTx } from "../db";
import { lockStation } from "../db/locks";
import { inTransaction } from "../db/retry";
import { appendEvent } from "../events/append-event";
import { lockBillRow } from "../bills/lock-bill";
import { deriveStatus, loadSession, type SessionFacts } from "./session-facts";
import { presentSession } from "./present-session";

/**
 * Locks a tenant's session for a change, in the lock order (server/db/README.md): a csms
 * session's station row, then its bill row, then the session row. Every transaction that writes a
 * csms session or its bill holds the station first, so a charger's message (station → bill →
 * session) and a request never wait on each other in a cycle. A simulated session is never
 * touched by a charger: its bill and row are locked alone. Null when the tenant has no such one.
 */
export async function lockSession(
  tx: DbTx,
  { tenantId, sessionId }: { tenantId: number; sessionId: string },
): Promise<SessionFacts | null> {
  const found = await tx.chargingSession.findFirst({
    where: { id: sessionId, tenantId },
    select: { stationId: true, source: true, billId: true }, // never change: read before the lock
  });
  if (!found) return null;
  if (found.source === "csms") await lockStation(tx, found.stationId);
  await lockBillRow(tx, found.billId);
  await lockSessionRow(tx, sessionId);
  return loadSession(tx, { id: sessionId });
}

/** The session row's lock, for a transaction that already holds its station and bill. */
async function lockSessionRow(tx: DbTx, sessionId: string) {
  await tx.$queryRaw`SELECT id FROM charging_sessions WHERE id = ${sessionId} FOR NO KEY UPDATE`;
}

/**
 * Publishes the session's status when the facts moved it: `charging_session.status_changed`
 * (session_id, status, previous_status, the session) with the stored status updated, in the
 * caller's transaction, which holds the session's station (csms) and wrote the fact. The session
 * row is locked and compared here, so a change is published once, whoever sees it first (the
 * charger's message, an operation's outcome, a request, a client's read). Returns the session as
 * it now reads.
 */
export async function syncSessionStatus(tx: DbTx, sessionId: string) {
  await lockSessionRow(tx, sessionId);
  const facts = await loadSession(tx, { id: sessionId });
  if (!facts) return null;
  const status = deriveStatus(facts);
  const previous = facts.row.status;
  if (status === previous) return presentSession(facts);
  await tx.chargingSession.update({ where: { id: sessionId }, data: { status } });
  const now = (await loadSession(tx, { id: sessionId }))!;
  const session = presentSession(now);
  await appendEvent({
    db: tx,
    tenantId: now.row.tenantId,
    type: "charging_session.status_changed",
    resourceId: sessionId,
    data: { session_id: sessionId, status, previous_status: previous, session },
  });
  return session;
}

/**
 * A client read found a status nobody published yet (a fact no hook saw): publish it, once. The
 * session is locked in the lock order and compared again, so concurrent readers publish it once.
 */
export async function publishObserved(rootDb: Db, facts: SessionFacts) {
  if (deriveStatus(facts) === facts.row.status) return presentSession(facts);
  return inTransaction(rootDb, async (tx) => {
    await lockSession(tx, { tenantId: facts.row.tenantId, sessionId: facts.row.id });
    return (await syncSessionStatus(tx, facts.row.id))!;
  });
}
