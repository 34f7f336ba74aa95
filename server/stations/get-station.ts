import { db as defaultDb, queryPrepared, type DbTx } from "../db";
import type { Display } from "../generated/prisma/client";
import { notFound } from "../errors";
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
type Dated = "pushedBootAt" | "deletedAt" | "createdAt" | "updatedAt";
type JsonDisplay = Omit<Display, Dated> & { evseNumber: number } & {
  [K in Dated]: Display[K] extends Date ? string : string | null;
};
type Row = Omit<StationRow, "connectors" | "faults"> & {
  connectors: JsonConnector[];
  faults: JsonFault[];
};

/** The station's columns, its connectors (each with its EVSE and open reservation) and open faults. */
const STATION_COLUMNS = `
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
              WHERE f.station_id = s.id AND f.cleared_at IS NULL), '[]') AS faults`;

/**
 * What a station read adds: its displays with their EVSE numbers (`loadStationDisplays`) and the
 * hostname of its tenant's ready custom domain (`readyDomainBase`: the first registered whose
 * certificate is presented and still valid).
 */
const READ_COLUMNS = `,
           COALESCE((
             SELECT json_agg(json_build_object(
                      'id', d.id, 'tenantId', d.tenant_id, 'stationId', d.station_id,
                      'evseId', d.evse_id, 'url', d.url, 'tariffId', d.tariff_id,
                      'imageSha256', d.image_sha256, 'state', d.state, 'shown', d.shown,
                      'lastError', d.last_error, 'operationId', d.operation_id,
                      'pushedBootAt', d.pushed_boot_at, 'pushedGeneration', d.pushed_generation,
                      'pushedTariffVersion', d.pushed_tariff_version, 'deletedAt', d.deleted_at,
                      'createdAt', d.created_at, 'updatedAt', d.updated_at,
                      'evseNumber', e.evse_number))
               FROM displays d JOIN evses e ON e.id = d.evse_id
              WHERE d.station_id = s.id), '[]') AS displays,
           (SELECT o.hostname FROM ocpp_domains o
             WHERE o.tenant_id = s.tenant_id AND o.tls_ready_at IS NOT NULL
               AND o.certificate_not_after > $3
             ORDER BY o.created_at, o.id
             LIMIT 1) AS "readyDomain"`;

const FROM = `
      FROM stations s
     WHERE s.id = $1 AND s.tenant_id = $2`;

/** The two statements, each one string (its hash computed once: `queryPrepared`). */
const STATION_ROW = STATION_COLUMNS + FROM;
const STATION_READ = STATION_COLUMNS + READ_COLUMNS + FROM;

/** The JSON aggregates' timestamps as the Dates Prisma's include gives. */
function asStationRow(row: Row): StationRow {
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

const dateOrNull = (value: string | null) => (value === null ? null : new Date(value));

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
  const [row] = await queryPrepared<Row>(db, STATION_ROW, [stationId, tenantId]);
  if (!row) throw notFound("station");
  return asStationRow(row);
}

/**
 * A station as /v1 answers it, in one statement (prepared once per connection): the row, its
 * displays and its tenant's ready domain together; preproduction charger URLs, where offered,
 * are one more.
 */
export async function getStation({ tenantId, stationId, db = defaultDb() }: GetStationOptions) {
  const [read] = await queryPrepared<Row & { displays: JsonDisplay[]; readyDomain: string | null }>(
    db,
    STATION_READ,
    [stationId, tenantId, new Date()],
  );
  if (!read) throw notFound("station");
  const { displays, readyDomain, ...row } = read;
  const station = asStationRow(row);
  return presentStation(
    station,
    displays.map((d) => ({
      ...d,
      pushedBootAt: dateOrNull(d.pushedBootAt),
      deletedAt: dateOrNull(d.deletedAt),
      createdAt: new Date(d.createdAt),
      updatedAt: new Date(d.updatedAt),
    })),
    await loadChargerUrls(db, station.tenantId),
    readyDomain ? `wss://${readyDomain}/ocpp` : null,
  );
}
