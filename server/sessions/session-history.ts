import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { presentEvent } from "../events/present-event";
import { presentOperation } from "../operations/present-operation";

type HistoryOptions = { tenantId: number; sessionId: string; db?: DbTx };

async function sessionOperations(db: DbTx, tenantId: number, sessionId: string) {
  return db.operation.findMany({
    where: {
      tenantId,
      scope: { in: ["external.start", "external.stop"] },
      request: { path: ["session_id"], equals: sessionId },
    },
    orderBy: { id: "asc" },
  });
}

/** Every start and stop operation of a session, refused ones included, oldest first. */
export async function listSessionOperations({
  tenantId,
  sessionId,
  db = defaultDb(),
}: HistoryOptions) {
  const session = await db.chargingSession.findFirst({ where: { id: sessionId, tenantId } });
  if (!session) throw notFound("charging session");
  return { data: (await sessionOperations(db, tenantId, sessionId)).map(presentOperation) };
}

/**
 * The events about a session in log order: its status changes, its bill's events and its
 * operations' completions (at most the newest 200).
 */
export async function listSessionEvents({ tenantId, sessionId, db = defaultDb() }: HistoryOptions) {
  const session = await db.chargingSession.findFirst({ where: { id: sessionId, tenantId } });
  if (!session) throw notFound("charging session");
  const operations = await sessionOperations(db, tenantId, sessionId);
  const rows = await db.event.findMany({
    where: {
      tenantId,
      resourceId: { in: [sessionId, session.billId, ...operations.map((o) => o.id)] },
    },
    orderBy: { sequence: "desc" },
    take: 200,
  });
  return { data: rows.reverse().map((row) => presentEvent(row)) };
}
