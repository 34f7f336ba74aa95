import type { DbTx } from "../db";
import { Prisma, type Operation } from "../generated/prisma/client";

/** The operations columns under Prisma's field names: a raw statement's row is an `Operation`. */
export const OPERATION_COLUMNS = Prisma.sql`id, tenant_id AS "tenantId", api_key_id AS "apiKeyId",
  station_id AS "stationId", scope, action, status, request, secret, result,
  claimed_by AS "claimedBy", claimed_at AS "claimedAt", created_at AS "createdAt",
  completed_at AS "completedAt"`;

/** The operation as it is now, in one statement (a waiting 202 reads it on every wake-up). */
export async function readOperation(db: DbTx, operationId: string): Promise<Operation> {
  const rows = await db.$queryRaw<Operation[]>`
    SELECT ${OPERATION_COLUMNS} FROM operations WHERE id = ${operationId}`;
  if (!rows[0]) throw new Error(`operation ${operationId} does not exist`);
  return rows[0];
}
