import { env } from "../env";
import { presentFault } from "../charging/present-fault";
import type { ConnectorStatus } from "../charger-reports/connector-status";
import { displayCharger, presentStationDisplay } from "../displays/present-display";
import type {
  Connector,
  Display,
  Evse,
  Fault,
  Reservation,
  Station,
} from "../generated/prisma/client";
import type { StationConfiguration } from "./configuration/configuration-schema";
import type { StationResource } from "./station-schema";
import { stationChargerUrlFields, type ChargerUrlState } from "./charger-urls";

/** A connector's open reservation as the station shows it (`stationInclude`). */
export type ConnectorReservation = Pick<Reservation, "id" | "status" | "token" | "expiresAt">;
export type StationRow = Station & {
  connectors: (Connector & { evse: Evse; reservations: ConnectorReservation[] })[];
  faults: Fault[];
};

/**
 * The station's OCPP-J endpoint: the path ends in the station name. `base`: the tenant's ready
 * custom domain's (`readyDomainBase`), else the service's own.
 */
export function connectionUrl(name: string, base: string | null = null): string {
  return `${base ?? `${env().ocppPublicUrl}/ocpp`}/${encodeURIComponent(name)}`;
}

export const stationInclude = {
  connectors: {
    include: {
      evse: true,
      // the open reservation (server/reservations), newest first
      reservations: {
        where: { status: { in: ["requested", "accepted"] as string[] } },
        orderBy: { id: "desc" },
        take: 1,
        select: { id: true, status: true, token: true, expiresAt: true },
      },
    },
    orderBy: { connectorNumber: "asc" },
  },
  faults: { where: { clearedAt: null }, orderBy: { id: "desc" } },
} as const;

/**
 * The API shape of a station (identical in every supported version). `displays`: the station's
 * display rows with their EVSE numbers (`loadStationDisplays`); none for a new station.
 * `chargerUrls`: the tenant's preproduction charger-URL state (`loadChargerUrls`, null outside
 * preproduction): `charger_id`, `username` and `connection_base_url` are present only when it is
 * on, and absent from the JSON otherwise (never null).
 * `ocppBase`: the tenant's ready custom domain's endpoint base (`readyDomainBase`), or null.
 */
export function presentStation(
  row: StationRow,
  displays: readonly (Display & { evseNumber: number })[] = [],
  chargerUrls: ChargerUrlState | null = null,
  ocppBase: string | null = null,
): StationResource {
  const resource: StationResource = {
    id: row.id,
    tenant_id: row.tenantId,
    location_id: row.locationId,
    name: row.name,
    external_reference: row.externalReference,
    serial: row.serial,
    connection_url: connectionUrl(row.name, ocppBase),
    // Live fields, kept by the OCPP gateway. `online`: a gateway holds the station's socket.
    online: row.gatewayId !== null,
    protocol: (row.protocol as StationResource["protocol"]) ?? null,
    last_seen: row.lastSeenAt?.toISOString() ?? null,
    boot: row.bootedAt
      ? {
          vendor: row.bootVendor,
          model: row.bootModel,
          firmware_version: row.firmwareVersion,
          booted_at: row.bootedAt.toISOString(),
        }
      : null,
    connectors: row.connectors.map((c) => ({
      id: c.id,
      evse_number: c.evse.evseNumber,
      connector_number: c.connectorNumber,
      evse_connector_number: c.evseConnectorNumber,
      status: (c.status as ConnectorStatus | null) ?? null,
      ocpp_status: c.ocppStatus,
      error_code: c.errorCode,
      status_updated_at: c.statusUpdatedAt?.toISOString() ?? null,
      reservation: c.reservations[0]
        ? {
            id: c.reservations[0].id,
            status: c.reservations[0].status as "requested" | "accepted",
            token: c.reservations[0].token,
            expires_at: c.reservations[0].expiresAt.toISOString(),
          }
        : null,
    })),
    display: presentStationDisplay(
      displayCharger(row, new Set(row.connectors.map((c) => c.evseId)).size),
      displays,
    ),
    open_faults: row.faults.map(presentFault),
    configuration: (row.configuration as StationConfiguration | null) ?? null,
    local_list: {
      version: row.localListVersion,
      synced_at: row.localListSyncedAt?.toISOString() ?? null,
      in_step: row.localList !== null,
    },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  return { ...resource, ...stationChargerUrlFields(chargerUrls, row.tenantId, row.name) };
}
