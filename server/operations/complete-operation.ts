import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import type { Prisma } from "../generated/prisma/client";
import type { OperationStatus } from "./operation-schema";
import { presentOperation } from "./present-operation";

/**
 * Moves an operation from `dispatching` to a final state once, with its `operation.completed`
 * event in the same transaction. Returns null when it was already final (nothing written).
 */
export async function completeOperation(
  tx: DbTx,
  operationId: string,
  outcome: { status: Exclude<OperationStatus, "dispatching">; result: Record<string, unknown> },
) {
  const updated = await tx.operation.updateMany({
    where: { id: operationId, status: "dispatching" },
    data: {
      status: outcome.status,
      result: outcome.result as Prisma.InputJsonObject,
      completedAt: new Date(),
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
