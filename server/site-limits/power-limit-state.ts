import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import type { ConnectorOverride, PowerLimitResource } from "./limit-schema";

type Row = {
  location_id: number;
  max_power_w: number;
  covers_all: boolean;
  station_ids: number[];
  voltage_v: number;
  min_power_w: number;
  connector_max_power_w: number;
  phases: number;
  overrides: ConnectorOverride[];
  band_min_deci_a: number;
  band_percent: number;
  created_at: Date;
  updated_at: Date;
};

type AllocationRow = {
  station_id: number;
  station_name: string;
  connector_id: number;
  transaction_id: number;
  min_power_w: number;
  max_power_w: number;
  phases: number;
  allocated_w: number;
  allocated_deci_a: number;
  held_back_w: number;
  sent_w: number | null;
  profile_state: string | null;
  power_kw: string | null;
  updated_at: Date;
};

const LIVE_STATES = new Set(["pending", "installed", "rejected", "unknown"]);

/**
 * The location's limit as GET …/power-limit shows it (null when it has none): the limit, each
 * running session's share with the charger's answer to it, the latest measured draw of each and
 * their sum, and what is counted against the limit. Two statements; no lock.
 */
export async function readPowerLimitState(
  db: DbTx,
  tenantId: number,
  locationId: number,
): Promise<PowerLimitResource | null> {
  const [limit] = await db.$queryRaw<Row[]>`
    SELECT location_id, max_power_w, covers_all, station_ids, voltage_v, min_power_w,
           connector_max_power_w, phases, overrides, band_min_deci_a, band_percent, created_at,
           updated_at
      FROM site_power_limits WHERE location_id = ${locationId} AND tenant_id = ${tenantId}`;
  if (!limit) return null;
  const rows = await db.$queryRaw<AllocationRow[]>`
    SELECT a.station_id, s.name AS station_name, a.connector_id, a.transaction_id, a.min_power_w,
           a.max_power_w, a.phases, a.allocated_w, a.allocated_deci_a, a.held_back_w, a.sent_w,
           CASE WHEN cp.profile->'transaction'->>'id' = a.transaction_id::text THEN cp.state END
             AS profile_state,
           (SELECT m.power_kw FROM meter_samples m
             WHERE m.transaction_id = a.transaction_id AND m.power_kw IS NOT NULL
             ORDER BY m.sampled_at DESC LIMIT 1) AS power_kw,
           a.updated_at
      FROM site_power_allocations a
      JOIN stations s ON s.id = a.station_id
      LEFT JOIN charging_profiles cp
        ON cp.station_id = a.station_id AND cp.charging_profile_id = a.charging_profile_id
     WHERE a.location_id = ${locationId}
     ORDER BY a.station_id, a.connector_id`;
  const allocations = rows.map((r) => {
    const drawW = r.power_kw === null ? null : Math.round(Number(r.power_kw) * 1000);
    const state =
      r.sent_w !== null && r.profile_state && LIVE_STATES.has(r.profile_state)
        ? (r.profile_state as "pending" | "installed" | "rejected" | "unknown")
        : null;
    return {
      station_id: r.station_id,
      station_name: r.station_name,
      connector_id: r.connector_id,
      transaction_id: r.transaction_id,
      min_power_w: r.min_power_w,
      max_power_w: r.max_power_w,
      phases: r.phases,
      allocated_w: r.allocated_w,
      allocated_current_a: r.allocated_deci_a / 10,
      draw_w: drawW,
      profile_state: state,
      held_back_w: r.held_back_w,
      updated_at: r.updated_at.toISOString(),
    };
  });
  return {
    location_id: limit.location_id,
    max_power_w: limit.max_power_w,
    station_ids: limit.covers_all ? null : limit.station_ids,
    voltage_v: limit.voltage_v,
    connector_defaults: {
      min_power_w: limit.min_power_w,
      max_power_w: limit.connector_max_power_w,
      phases: limit.phases,
    },
    connector_overrides: limit.overrides,
    tolerance_band: { min_current_a: limit.band_min_deci_a / 10, percent: limit.band_percent },
    live_power_w: allocations.reduce((sum, a) => sum + (a.draw_w ?? 0), 0),
    allocated_w: allocations.reduce((sum, a) => sum + a.allocated_w + a.held_back_w, 0),
    allocations,
    created_at: limit.created_at.toISOString(),
    updated_at: limit.updated_at.toISOString(),
  };
}

/**
 * The console's hook: exactly what GET /v1/tenants/{t}/locations/{l}/power-limit answers (404
 * `not_found` when the location is not the tenant's or has no limit).
 */
export async function getPowerLimitState(
  tenantId: number,
  locationId: number,
  db: DbTx = defaultDb(),
): Promise<PowerLimitResource> {
  const state = await readPowerLimitState(db, tenantId, locationId);
  if (state) return state;
  const location = await db.location.findFirst({
    where: { id: locationId, tenantId },
    select: { id: true },
  });
  throw notFound(location ? "power limit" : "location");
}
