import type { DbTx } from "../db";
import type { Operation } from "../generated/prisma/client";
import { appendEvent } from "../events/append-event";
import { operationKind } from "./kinds";
import type { Outcome } from "./kinds/kind";
import { OPERATION_COLUMNS } from "./operation-row";
import { OUTCOME_CHANNEL } from "./outcome-notices";
import { presentOperation } from "./present-operation";

/**
 * Moves an operation from `dispatching` to a final state once: the row, its kind's `onSettled`
 * and its `operation.completed` event in the caller's transaction. Every way an operation ends
 * comes through here (an answer, a sweep, an offline refusal, an outcome decided at creation).
 * Returns null when it was already final (nothing written, `onSettled` not run). Notifies
 * `operation_outcomes` (delivered at commit) for a waiting 202. Locks the
 * operation's station before the operation row (the lock order at `appendEvent`).
 */
export async function completeOperation(tx: DbTx, operationId: string, outcome: Outcome) {
  // Its state and, while it is dispatching, its station's lock: one statement (it was two).
  const [current] = await tx.$queryRaw<{ status: string; stationLocked: number | null }[]>`
    SELECT o.status,
           (SELECT s.id FROM stations s WHERE s.id = o.station_id AND o.status = 'dispatching'
               FOR NO KEY UPDATE) AS "stationLocked"
      FROM operations o WHERE o.id = ${operationId}`;
  if (current?.status !== "dispatching") return null;
  // The final state and the 202's wake-up (delivered at commit, `waitForOperation`) in one
  // statement. A final operation is never sent: its secret (a pushed password) is not kept.
  const [row] = await tx.$queryRaw<Operation[]>`
    WITH op AS (
      UPDATE operations
         SET status = ${outcome.status}, result = ${JSON.stringify(outcome.result)}::jsonb,
             completed_at = ${new Date()}, secret = NULL
       WHERE id = ${operationId} AND status = 'dispatching'
      RETURNING ${OPERATION_COLUMNS})
    SELECT op.* FROM op, pg_notify(${OUTCOME_CHANNEL}, op.id)`;
  if (!row) return null;
  await operationKind(row.scope).onSettled?.(tx, row, outcome);
  const operation = presentOperation(row);
  await appendEvent({
    db: tx,
    tenantId: row.tenantId,
    type: "operation.completed",
    resourceId: row.id,
    ...(row.stationId ? { station: { id: row.stationId, occurredAt: null } } : {}),
    data: { operation, scope: row.scope },
  });
  return operation;
}
