import { queryRows, type DbTx } from "../db";
import { Prisma } from "../generated/prisma/client";
import { open } from "../lib/secret-box";

/** What a virtual charger needs to connect and boot as its sandbox station. */
export type SandboxChargerSetup = {
  stationId: number;
  tenantId: number;
  /** the station's name: the charger's OCPP identity */
  name: string;
  /** `ocpp2.0.1` (or `ocpp2.1`) or `ocpp1.6` */
  protocol: string;
  /** the station's OCPP password, unsealed */
  password: string;
  nominalPowerW: number;
  connectors: {
    id: number;
    connectorNumber: number;
    evseNumber: number;
    evseConnectorNumber: number;
    /** the OCPP status last recorded (null before any) */
    ocppStatus: string | null;
  }[];
};

/**
 * A sandbox station's virtual charger as it connects: its identity, its password (unsealed from
 * `password_sealed`), its protocol and its connectors. Null when the station has no charger row.
 *
 * The protocol is the charger row's `protocol` (the API side's provisioning sets it: `ocpp1.6` for
 * the `-v16` station), read through `to_jsonb` so this also runs on a schema without that column,
 * where the station's own `protocol` column (or 2.0.1) stands in.
 */
export async function readSandboxChargerSetup(
  db: DbTx,
  stationId: number,
): Promise<SandboxChargerSetup | null> {
  const [row] = await queryRows<{
    tenant_id: number;
    name: string;
    protocol: string;
    password_sealed: string;
    nominal_power_w: number;
    connectors: {
      id: number;
      connector_number: number;
      evse_number: number;
      evse_connector_number: number;
      ocpp_status: string | null;
    }[];
  }>(
    db,
    Prisma.sql`
      SELECT c.tenant_id, s.name,
             COALESCE(to_jsonb(c) ->> 'protocol', s.protocol, 'ocpp2.0.1') AS protocol,
             c.password_sealed, c.nominal_power_w,
             (SELECT COALESCE(json_agg(json_build_object(
                       'id', k.id, 'connector_number', k.connector_number,
                       'evse_number', e.evse_number,
                       'evse_connector_number', k.evse_connector_number,
                       'ocpp_status', k.ocpp_status) ORDER BY k.connector_number), '[]')
                FROM connectors k JOIN evses e ON e.id = k.evse_id
               WHERE k.station_id = s.id) AS connectors
        FROM sandbox_chargers c JOIN stations s ON s.id = c.station_id
       WHERE c.station_id = ${stationId}`,
  );
  if (!row) return null;
  return {
    stationId,
    tenantId: row.tenant_id,
    name: row.name,
    protocol: row.protocol,
    password: open(row.password_sealed),
    nominalPowerW: row.nominal_power_w,
    connectors: row.connectors.map((k) => ({
      id: k.id,
      connectorNumber: k.connector_number,
      evseNumber: k.evse_number,
      evseConnectorNumber: k.evse_connector_number,
      ocppStatus: k.ocpp_status,
    })),
  };
}
