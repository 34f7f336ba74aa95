import type { Operation } from "../generated/prisma/client";
import { findOperationKind } from "./kinds";
import type { OperationResource, OperationStatus } from "./operation-schema";

export function presentOperation(row: Operation): OperationResource {
  const hidden = new Set(findOperationKind(row.scope)?.hiddenRequestFields ?? []);
  return {
    id: row.id,
    tenant_id: row.tenantId,
    station_id: row.stationId,
    scope: row.scope,
    action: row.action,
    status: row.status as OperationStatus,
    request: Object.fromEntries(
      Object.entries(row.request as Record<string, unknown>).filter(([k]) => !hidden.has(k)),
    ),
    result: (row.result as Record<string, unknown> | null) ?? null,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}
