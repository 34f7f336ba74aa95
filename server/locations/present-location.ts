import type { Location } from "../generated/prisma/client";
import type { LocationResource } from "./location-schema";

/** The API shape of a location (identical in every supported version). */
export function presentLocation(row: Location): LocationResource {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    name: row.name,
    address: row.address as LocationResource["address"],
    coordinates: { latitude: Number(row.latitude), longitude: Number(row.longitude) },
    time_zone: row.timeZone,
    external_reference: row.externalReference,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
