import type { DbTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import type { ReconciliationReason, SessionStatus } from "./session-schema";

/** What a session is read with: its bill and the bill's transaction, and its reports. */
export const sessionInclude = {
  bill: { include: { transaction: true } },
  reports: { orderBy: [{ receivedAt: "asc" }, { id: "asc" }] },
} as const satisfies Prisma.ChargingSessionInclude;

export type SessionRow = Prisma.ChargingSessionGetPayload<{ include: typeof sessionInclude }>;
type OperationState = { id: string; status: string };

/** A session with the facts its status is derived from. */
export type SessionFacts = {
  row: SessionRow;
  start: OperationState | null;
  stop: OperationState | null;
};

/** The facts of sessions read by `where` (tenant-scoped by the caller), in `orderBy` order. */
export async function loadSessions(
  db: DbTx,
  args: Pick<Prisma.ChargingSessionFindManyArgs, "where" | "orderBy" | "take">,
): Promise<SessionFacts[]> {
  const rows = await db.chargingSession.findMany({ ...args, include: sessionInclude });
  const ids = rows.flatMap((r) => [r.startOperationId, r.stopOperationId]).filter(isString);
  const ops = ids.length
    ? await db.operation.findMany({
        where: { id: { in: ids } },
        select: { id: true, status: true },
      })
    : [];
  const byId = new Map(ops.map((o) => [o.id, o]));
  const op = (id: string | null) => (id ? (byId.get(id) ?? null) : null);
  return rows.map((row) => ({
    row,
    start: op(row.startOperationId),
    stop: op(row.stopOperationId),
  }));
}

export async function loadSession(db: DbTx, where: Prisma.ChargingSessionWhereInput) {
  const [facts] = await loadSessions(db, { where, take: 1 });
  return facts ?? null;
}

const isString = (v: string | null): v is string => v !== null;

/**
 * The status the facts say, in the order they can hold: canceled and final close a session; a
 * matched transaction decides while there is one (ended: `awaiting_bill`; a stop reserved and not
 * refused: `stopping`); before that, the start operation (dispatching or accepted: `starting`; no
 * confirmed answer: `start_unknown`; refused: `created` again, start anew).
 */
export function deriveStatus({ row, start, stop }: SessionFacts): SessionStatus {
  if (row.canceledAt) return "canceled";
  if (row.bill.status === "final") return "final";
  const transaction = row.bill.transaction;
  if (transaction) {
    if (transaction.endedAt) return "awaiting_bill";
    if (stop && stop.status !== "rejected") return "stopping";
    return "charging";
  }
  if (!start || start.status === "rejected") return "created";
  return start.status === "unknown" ? "start_unknown" : "starting";
}

/** Whether a start reservation is held: a start that was not refused. */
export const startReserved = (f: SessionFacts) => f.start !== null && f.start.status !== "rejected";
/** Whether a stop reservation is held: a stop that was not refused. */
export const stopReserved = (f: SessionFacts) => f.stop !== null && f.stop.status !== "rejected";

/** Why the session needs an operator: flags the charger's messages raised, and uncertain outcomes. */
export function reconciliationReasons(f: SessionFacts): ReconciliationReason[] {
  const transaction = f.row.bill.transaction;
  const reasons: ReconciliationReason[] = [];
  if (f.start?.status === "unknown" && !transaction) reasons.push("start_unknown");
  if (f.stop?.status === "unknown" && transaction && !transaction.endedAt)
    reasons.push("stop_unknown");
  for (const flag of f.row.reconciliationFlags)
    if (flag === "token_elsewhere" || flag === "second_transaction") reasons.push(flag);
  return reasons;
}
