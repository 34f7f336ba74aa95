import { owningGateway } from "../charging/gateways";
import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import { fieldError, notFound, type FieldIssue } from "../errors";
import { chargingProfileClear } from "../charging-profiles/operation-kinds";
import { createOperation } from "../operations/create-operation";
import type { PutPowerLimitInput } from "./limit-schema";
import { getPowerLimitState } from "./power-limit-state";
import { requestRecompute } from "./trigger";

const invalid = (issues: FieldIssue[]) =>
  fieldError(
    "validation_failed",
    `The power limit is not valid: ${issues.map((i) => `${i.field} ${i.message}`).join("; ")}.`,
    issues,
  );

/**
 * Sets (or replaces) a location's power limit and asks for its recomputation in the same
 * transaction (the job runs once this commits). Every field is checked before anything is
 * written: 422 `validation_failed` names each. Locks the limit row (the upsert), which comes
 * before stations in the lock order. Answers what GET shows (the shares of the last computation).
 */
export async function putPowerLimit({
  db,
  tenantId,
  locationId,
  input,
}: {
  db: DbTx;
  tenantId: number;
  locationId: number;
  input: PutPowerLimitInput;
}) {
  const location = await db.location.findFirst({
    where: { id: locationId, tenantId },
    select: { id: true, stations: { select: { id: true, connectors: { select: { id: true } } } } },
  });
  if (!location) throw notFound("location");
  const issues: FieldIssue[] = [];
  const own = new Map(location.stations.map((s) => [s.id, s]));
  const stationIds = input.station_ids ? [...new Set(input.station_ids)] : null;
  if (input.station_ids && stationIds!.length !== input.station_ids.length)
    issues.push({ field: "station_ids", message: "must not name a station twice" });
  stationIds?.forEach((id, i) => {
    if (!own.has(id))
      issues.push({ field: `station_ids.${i}`, message: "is not a station of this location" });
  });
  const covered = new Set(
    (stationIds ?? [...own.keys()]).flatMap((id) => own.get(id)?.connectors.map((c) => c.id) ?? []),
  );
  const d = input.connector_defaults;
  if (d.phases === 2)
    issues.push({ field: "connector_defaults.phases", message: "must be 1 or 3" });
  if (d.min_power_w > d.max_power_w)
    issues.push({
      field: "connector_defaults.min_power_w",
      message: "must not exceed connector_defaults.max_power_w",
    });
  const seen = new Set<number>();
  input.connector_overrides.forEach((o, i) => {
    if (seen.has(o.connector_id))
      issues.push({
        field: `connector_overrides.${i}.connector_id`,
        message: "names a connector already overridden",
      });
    seen.add(o.connector_id);
    if (o.phases === 2)
      issues.push({ field: `connector_overrides.${i}.phases`, message: "must be 1 or 3" });
    if (!covered.has(o.connector_id))
      issues.push({
        field: `connector_overrides.${i}.connector_id`,
        message: "is not a connector of a station the limit covers",
      });
    if ((o.min_power_w ?? d.min_power_w) > (o.max_power_w ?? d.max_power_w))
      issues.push({
        field: `connector_overrides.${i}.min_power_w`,
        message: "must not exceed the connector's max_power_w",
      });
  });
  if (issues.length) throw invalid(issues);

  const fields = {
    tenantId,
    maxPowerW: input.max_power_w,
    coversAll: stationIds === null,
    stationIds: stationIds ?? [],
    voltageV: input.voltage_v,
    minPowerW: d.min_power_w,
    connectorMaxPowerW: d.max_power_w,
    phases: d.phases,
    overrides: input.connector_overrides,
    bandMinDeciA: Math.round(input.tolerance_band.min_current_a * 10),
    bandPercent: input.tolerance_band.percent,
  };
  await db.sitePowerLimit.upsert({
    where: { locationId },
    create: { locationId, ...fields },
    update: fields,
  });
  await requestRecompute(db, locationId);
  return getPowerLimitState(tenantId, locationId, db);
}

/**
 * Removes a location's limit: each site-limit TxProfile the service sent for a running session is
 * cleared on its charger (a `station.charging_profile_clear` operation by its OCPP ID; an offline
 * station's is rejected with `station_offline` at once), and the limit and its shares are deleted,
 * in one transaction (the limit row, then the stations in id order). Answers the clear operations.
 */
export async function deletePowerLimit({
  db,
  tenantId,
  locationId,
}: {
  db: DbTx;
  tenantId: number;
  locationId: number;
}) {
  const limits = await db.$queryRaw<{ location_id: number }[]>`
    SELECT location_id FROM site_power_limits
     WHERE location_id = ${locationId} AND tenant_id = ${tenantId} FOR UPDATE`;
  if (!limits.length) {
    await getPowerLimitState(tenantId, locationId, db); // 404: which one is missing
    throw notFound("power limit");
  }
  const sent = await db.sitePowerAllocation.findMany({
    where: { locationId, sentW: { not: null } },
    orderBy: [{ stationId: "asc" }, { connectorId: "asc" }],
  });
  const operations = [];
  for (const a of sent) {
    await lockStation(db, a.stationId);
    operations.push(
      await createOperation({
        db,
        tenantId,
        stationId: a.stationId,
        apiKeyId: null,
        scope: chargingProfileClear.scope,
        action: "clear_charging_profile",
        request: { charging_profile_id: a.chargingProfileId },
        gatewayId: await owningGateway(db, a.stationId),
      }),
    );
  }
  await db.sitePowerLimit.delete({ where: { locationId } });
  return { location_id: locationId, operations };
}
