import { db as defaultDb, type DbTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { newId } from "../lib/ids";
import type { OperationStatus } from "./operation-schema";
import { presentOperation } from "./present-operation";

export type RecordCompletedOperationOptions = {
  tenantId: number;
  apiKeyId: string | null;
  stationId: number | null;
  scope: string;
  action: string;
  request: Record<string, unknown>;
  status: Exclude<OperationStatus, "dispatching">;
  result: Record<string, unknown>;
  db?: DbTx;
};

/** An operation that completes inside the service (nothing is sent to a charger). */
export async function recordCompletedOperation({
  db = defaultDb(),
  ...o
}: RecordCompletedOperationOptions) {
  const now = new Date();
  const row = await db.operation.create({
    data: {
      id: newId("op"),
      tenantId: o.tenantId,
      apiKeyId: o.apiKeyId,
      stationId: o.stationId,
      scope: o.scope,
      action: o.action,
      status: o.status,
      request: o.request as Prisma.InputJsonObject,
      result: o.result as Prisma.InputJsonObject,
      createdAt: now,
      completedAt: now,
    },
  });
  return presentOperation(row);
}
