import { env } from "../env";
import type { Connector, Evse, Station } from "../generated/prisma/client";
import type { StationResource } from "./station-schema";

export type StationRow = Station & { connectors: (Connector & { evse: Evse })[] };

/** The station's OCPP-J endpoint: the path ends in the station name. */
export function connectionUrl(name: string): string {
  return `${env().ocppPublicUrl}/ocpp/${encodeURIComponent(name)}`;
}

export const stationInclude = {
  connectors: { include: { evse: true }, orderBy: { connectorNumber: "asc" } },
} as const;

/** The API shape of a station (identical in every supported version). */
export function presentStation(row: StationRow): StationResource {
  const resource: StationResource = {
    id: row.id,
    tenant_id: row.tenantId,
    location_id: row.locationId,
    name: row.name,
    external_reference: row.externalReference,
    serial: row.serial,
    connection_url: connectionUrl(row.name),
    // Live fields: filled by the OCPP gateway once a charger connects.
    online: false,
    protocol: null,
    last_seen: null,
    boot: null,
    connectors: row.connectors.map((c) => ({
      id: c.id,
      evse_number: c.evse.evseNumber,
      connector_number: c.connectorNumber,
      evse_connector_number: c.evseConnectorNumber,
      status: null,
      ocpp_status: null,
      error_code: null,
      status_updated_at: null,
    })),
    display: { adapter: null, reason: "not_configured", clear: null, evses: [] },
    open_faults: [],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  if (env().serviceEnv === "preproduction") {
    resource.charger_id = row.name;
    resource.username = row.name;
    resource.connection_base_url = `${env().ocppPublicUrl}/ocpp`;
  }
  return resource;
}
