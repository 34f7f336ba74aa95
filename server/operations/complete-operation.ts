import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import { appendEvent } from "../events/append-event";
import { Prisma } from "../generated/prisma/client";
import type { OperationStatus } from "./operation-schema";
import { presentOperation } from "./present-operation";

/**
 * Moves an operation from `dispatching` to a final state once, with its `operation.completed`
 * event in the same transaction. Returns null when it was already final (nothing written).
 * Locks the operation's station before the operation row (the lock order at `appendEvent`).
 */
export async function completeOperation(
  tx: DbTx,
  operationId: string,
  outcome: { status: Exclude<OperationStatus, "dispatching">; result: Record<string, unknown> },
) {
  const current = await tx.operation.findUnique({
    where: { id: operationId },
    select: { status: true, stationId: true },
  });
  if (current?.status !== "dispatching") return null;
  if (current.stationId) await lockStation(tx, current.stationId);
  const updated = await tx.operation.updateMany({
    where: { id: operationId, status: "dispatching" },
    data: {
      status: outcome.status,
      result: outcome.result as Prisma.InputJsonObject,
      completedAt: new Date(),
      // A final operation is never sent, and its call may carry a secret (a pushed password).
      ocppCall: Prisma.DbNull,
    },
  });
  if (updated.count === 0) return null;
  const row = await tx.operation.findUniqueOrThrow({ where: { id: operationId } });
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
