import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { loadStationDisplays } from "../displays/present-display";
import { readyDomainBase } from "../ocpp-domains/ready-domain";
import { presentStation, type ConnectorReservation, type StationRow } from "./present-station";
import { loadChargerUrls } from "./charger-urls";

export type GetStationOptions = { tenantId: number; stationId: number; db?: DbTx };

type JsonConnector = Omit<StationRow["connectors"][number], "statusUpdatedAt" | "reservations"> & {
  statusUpdatedAt: string | null;
  reservations: (Omit<ConnectorReservation, "expiresAt"> & { expiresAt: string })[];
};
type JsonFault = Omit<StationRow["faults"][number], "openedAt" | "clearedAt"> & {
  openedAt: string;
  clearedAt: string | null;
};

/**
 * The station with its connectors (each with its EVSE) and open faults, as `stationInclude`
 * reads them, in one statement: a station read is the most frequent /v1 call, and Prisma's
 * include would take one round trip per relation (four in all).
 */
export async function findStationRow({
  tenantId,
  stationId,
  db = defaultDb(),
}: GetStationOptions): Promise<StationRow> {
  const rows = await db.$queryRaw<
    (Omit<StationRow, "connectors" | "faults"> & {
      connectors: JsonConnector[];
      faults: JsonFault[];
    })[]
  >`
    SELECT s.id, s.tenant_id AS "tenantId", s.location_id AS "locationId", s.name,
           s.name_key AS "nameKey", s.external_reference AS "externalReference", s.serial,
           s.password_hash AS "passwordHash", s.password_verifier AS "passwordVerifier",
           s.gateway_id AS "gatewayId", s.protocol,
           s.connected_at AS "connectedAt", s.connection_generation AS "connectionGeneration",
           s.last_seen_at AS "lastSeenAt",
           s.boot_vendor AS "bootVendor", s.boot_model AS "bootModel",
           s.firmware_version AS "firmwareVersion", s.booted_at AS "bootedAt",
           s.event_sequence AS "eventSequence", s.created_at AS "createdAt",
           s.configuration, s.configuration_read_at AS "configurationReadAt",
           s.local_list_version AS "localListVersion", s.local_list AS "localList",
           s.local_list_synced_at AS "localListSyncedAt",
           s.charging_profiles_report AS "chargingProfilesReport",
           s.updated_at AS "updatedAt",
           COALESCE((
             SELECT json_agg(json_build_object(
                      'id', c.id, 'tenantId', c.tenant_id, 'stationId', c.station_id,
                      'evseId', c.evse_id, 'connectorNumber', c.connector_number,
                      'evseConnectorNumber', c.evse_connector_number, 'status', c.status,
                      'ocppStatus', c.ocpp_status, 'errorCode', c.error_code,
                      'statusUpdatedAt', c.status_updated_at,
                      'reservations', COALESCE((
                        SELECT json_agg(json_build_object('id', r.id, 'status', r.status,
                                                          'token', r.token,
                                                          'expiresAt', r.expires_at))
                          FROM (SELECT * FROM reservations r
                                 WHERE r.connector_id = c.id
                                   AND r.status IN ('requested', 'accepted')
                                 ORDER BY r.id DESC LIMIT 1) r), '[]'),
                      'evse', json_build_object('id', e.id, 'tenantId', e.tenant_id,
                                                'stationId', e.station_id,
                                                'evseNumber', e.evse_number))
                    ORDER BY c.connector_number)
               FROM connectors c JOIN evses e ON e.id = c.evse_id
              WHERE c.station_id = s.id), '[]') AS connectors,
           COALESCE((
             SELECT json_agg(json_build_object(
                      'id', f.id, 'tenantId', f.tenant_id, 'stationId', f.station_id,
                      'connectorId', f.connector_id, 'evseNumber', f.evse_number,
                      'errorCode', f.error_code, 'info', f.info, 'vendorId', f.vendor_id,
                      'vendorErrorCode', f.vendor_error_code, 'ocppStatus', f.ocpp_status,
                      'openedAt', f.opened_at, 'clearedAt', f.cleared_at)
                    ORDER BY f.id DESC)
               FROM faults f
              WHERE f.station_id = s.id AND f.cleared_at IS NULL), '[]') AS faults
      FROM stations s
     WHERE s.id = ${stationId} AND s.tenant_id = ${tenantId}`;
  const row = rows[0];
  if (!row) throw notFound("station");
  return {
    ...row,
    connectors: row.connectors.map((c) => ({
      ...c,
      statusUpdatedAt: c.statusUpdatedAt === null ? null : new Date(c.statusUpdatedAt),
      reservations: c.reservations.map((r) => ({ ...r, expiresAt: new Date(r.expiresAt) })),
    })),
    faults: row.faults.map((f) => ({
      ...f,
      openedAt: new Date(f.openedAt),
      clearedAt: f.clearedAt === null ? null : new Date(f.clearedAt),
    })),
  };
}

export async function getStation(options: GetStationOptions) {
  const row = await findStationRow(options);
  const db = options.db ?? defaultDb();
  const displays = await loadStationDisplays(db, [row.id]);
  return presentStation(
    row,
    displays.get(row.id),
    await loadChargerUrls(db, row.tenantId),
    await readyDomainBase(db, row.tenantId),
  );
}
