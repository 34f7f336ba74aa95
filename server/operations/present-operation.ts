import type { Operation } from "../generated/prisma/client";
import type { OperationResource, OperationStatus } from "./operation-schema";

/** Request fields kept for the service's own use and never shown (a pushed password's hash). */
const HIDDEN_REQUEST_FIELDS = new Set(["password_hash"]);

export function presentOperation(row: Operation): OperationResource {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    station_id: row.stationId,
    scope: row.scope,
    action: row.action,
    status: row.status as OperationStatus,
    request: Object.fromEntries(
      Object.entries(row.request as Record<string, unknown>).filter(
        ([k]) => !HIDDEN_REQUEST_FIELDS.has(k),
      ),
    ),
    result: (row.result as Record<string, unknown> | null) ?? null,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}
