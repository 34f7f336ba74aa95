import type { Event } from "../generated/prisma/client";
import { LATEST_VERSION, type ApiVersion } from "../versions";

export type EventResource = {
  id: string;
  sequence: number;
  type: string;
  tenant_id: number;
  resource_id: string | null;
  created_at: string;
  data: Record<string, unknown>;
  station_id?: number;
  station_sequence?: number;
  occurred_at?: string | null;
};

/**
 * The event record of spec section 6; charger events add station_id, station_sequence,
 * occurred_at. Shaped per API version (webhook endpoints pin one); both supported versions share
 * this shape today.
 */
export function presentEvent(row: Event, _version: ApiVersion = LATEST_VERSION): EventResource {
  const event: EventResource = {
    id: row.id,
    sequence: row.sequence,
    type: row.type,
    tenant_id: row.tenantId,
    resource_id: row.resourceId,
    created_at: row.createdAt.toISOString(),
    data: row.data as Record<string, unknown>,
  };
  if (row.stationId !== null) {
    event.station_id = row.stationId;
    event.station_sequence = row.stationSequence ?? 0;
    event.occurred_at = row.occurredAt?.toISOString() ?? null;
  }
  return event;
}
