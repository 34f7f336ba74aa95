import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import type { Prisma } from "../generated/prisma/client";
import { appendEvent } from "../events/append-event";
import { operationKind } from "./kinds";
import type { Outcome } from "./kinds/kind";
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
  const current = await tx.operation.findUnique({
    where: { id: operationId },
    select: { status: true, stationId: true },
  });
  if (current?.status !== "dispatching") return null;
  if (current.stationId) await lockStation(tx, current.stationId);
  const [row] = await tx.operation.updateManyAndReturn({
    where: { id: operationId, status: "dispatching" },
    data: {
      status: outcome.status,
      result: outcome.result as Prisma.InputJsonObject,
      completedAt: new Date(),
      // A final operation is never sent: its secret (a pushed password) is not kept.
      secret: null,
    },
  });
  if (!row) return null;
  // Delivered at commit: wakes the API's 202 waiting for this outcome (`waitForOperation`).
  await tx.$executeRaw`SELECT pg_notify(${OUTCOME_CHANNEL}, ${operationId})`;
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
