import type { TenantPrincipal } from "../access/caller";
import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import { fieldError, notFound } from "../errors";
import type { ChargingProfile } from "../generated/prisma/client";
import { newId } from "../lib/ids";
import type { ChargingProfilesReport } from "./reported-profiles";
import { randomInt } from "node:crypto";
import { createOperation } from "../operations/create-operation";
import {
  chargingProfileClear,
  chargingProfileSet,
  chargingProfilesReport,
  type ReportRequest,
  compositeScheduleRead,
  type ClearRequest,
  type CompositeRequest,
  type SetRequest,
} from "./operation-kinds";
import {
  profileIssues,
  type ChargingProfileResource,
  type ClearProfilesInput,
  type ReportProfilesInput,
  type CompositeScheduleInput,
  type Issue,
  type NeutralProfile,
  type ProfileState,
  type SetProfileInput,
  type Target,
} from "./profile-schema";

const invalid = (issues: Issue[]) =>
  fieldError(
    "validation_failed",
    `The charging profile is not valid: ${issues.map((i) => `${i.field} ${i.message}`).join("; ")}.`,
    issues,
  );

async function stationFor(db: DbTx, tenantId: number, stationId: number) {
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    select: { id: true, protocol: true },
  });
  if (!station) throw notFound("station");
  return station;
}

/**
 * A connector (by its ID), an EVSE (by its number) or the station (neither, or EVSE 0), resolved
 * against the station's rows into what each protocol addresses; null when neither field is given.
 */
export async function resolveTarget(
  db: DbTx,
  stationId: number,
  where: { connector_id?: number | undefined; evse_number?: number | undefined },
): Promise<Target | null> {
  if (where.connector_id !== undefined && where.evse_number !== undefined)
    throw invalid([
      { field: "evse_number", message: "must be absent when connector_id names the connector" },
    ]);
  if (where.connector_id !== undefined) {
    const connector = await db.connector.findFirst({
      where: { id: where.connector_id, stationId },
      include: { evse: { select: { evseNumber: true } } },
    });
    if (!connector)
      throw invalid([{ field: "connector_id", message: "is not a connector of this station" }]);
    return {
      connector_id: connector.id,
      evse_number: connector.evse.evseNumber,
      v16_connector: connector.connectorNumber,
    };
  }
  if (where.evse_number === undefined) return null;
  if (where.evse_number === 0) return { connector_id: null, evse_number: 0, v16_connector: 0 };
  const evse = await db.evse.findFirst({
    where: { stationId, evseNumber: where.evse_number },
    include: { connectors: { select: { connectorNumber: true } } },
  });
  if (!evse) throw invalid([{ field: "evse_number", message: "is not an EVSE of this station" }]);
  return {
    connector_id: null,
    evse_number: evse.evseNumber,
    v16_connector: evse.connectors.length === 1 ? evse.connectors[0]!.connectorNumber : null,
  };
}

const STATION: Target = { connector_id: null, evse_number: 0, v16_connector: 0 };

export function presentChargingProfile(row: ChargingProfile): ChargingProfileResource {
  const p = row.profile as unknown as NeutralProfile;
  return {
    id: row.id,
    station_id: row.stationId,
    charging_profile_id: row.chargingProfileId,
    source: row.source,
    evse_number: row.evseNumber,
    connector_id: row.connectorId,
    purpose: p.purpose,
    stack_level: row.stackLevel,
    kind: p.kind,
    recurrency: p.recurrency ?? null,
    valid_from: p.valid_from ?? null,
    valid_to: p.valid_to ?? null,
    transaction_id: p.transaction?.id ?? null,
    schedule: p.schedule,
    state: row.state as ProfileState,
    charger_status: row.chargerStatus,
    operation_id: row.operationId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * Installs a charging profile on a station, as a `station.charging_profile_set` operation
 * (`./operation-kinds.ts`), and keeps it as the service's row (`charging_profiles`, `pending`
 * until the charger answers). The one entry for every source: the API (`source: "api"`) and,
 * later, a site limit's TxProfiles. Validated against the protocol the station last spoke (422
 * `validation_failed` naming each field); nothing is written on a refusal. A `TxProfile` for a
 * transaction without a target takes the transaction's connector. Locks the station row first.
 */
export async function installChargingProfile({
  db,
  tenantId,
  stationId,
  input,
  apiKeyId,
  source = "api",
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: SetProfileInput;
  apiKeyId: string | null;
  source?: string;
}) {
  const station = await stationFor(db, tenantId, stationId);
  let target = await resolveTarget(db, stationId, input);
  let transaction: NeutralProfile["transaction"] = null;
  if (input.transaction_id !== undefined) {
    const tx = await db.transaction.findFirst({
      where: { id: input.transaction_id, stationId, endedAt: null },
      select: { id: true, reference: true, connector: { include: { evse: true } } },
    });
    if (!tx)
      throw invalid([
        { field: "transaction_id", message: "is not a running transaction of this station" },
      ]);
    transaction = { id: tx.id, reference: tx.reference };
    if (!target && tx.connector)
      target = {
        connector_id: tx.connector.id,
        evse_number: tx.connector.evse.evseNumber,
        v16_connector: tx.connector.connectorNumber,
      };
    else if (target && tx.connector && target.evse_number !== tx.connector.evse.evseNumber)
      throw invalid([
        { field: "transaction_id", message: "runs on another connector than the one named" },
      ]);
  }
  target ??= STATION;
  const { connector_id: _c, evse_number: _e, transaction_id: _t, ...rest } = input;
  await lockStation(db, stationId);
  const chargingProfileId =
    input.charging_profile_id ??
    ((
      await db.chargingProfile.aggregate({
        // a site limit's profiles have IDs of their own (server/site-limits/README.md)
        where: { stationId, source: { not: "site_limit" } },
        _max: { chargingProfileId: true },
      })
    )._max.chargingProfileId ?? 0) + 1;
  const profile: NeutralProfile = {
    ...rest,
    ...target,
    charging_profile_id: chargingProfileId,
    transaction,
  };
  const issues = profileIssues(profile, station.protocol);
  if (issues.length) throw invalid(issues);

  const fields = {
    evseNumber: target.evse_number,
    connectorId: target.connector_id,
    purpose: profile.purpose,
    stackLevel: profile.stack_level,
    profile: profile as object,
    source,
    state: "pending",
    chargerStatus: null,
    operationId: "",
  };
  const row = await db.chargingProfile.upsert({
    where: { stationId_chargingProfileId: { stationId, chargingProfileId } },
    create: { id: newId("cpr"), tenantId, stationId, chargingProfileId, ...fields },
    update: fields,
  });
  const request: SetRequest = {
    profile_id: row.id,
    profile,
    ...(source === "api" ? {} : { source }),
  };
  const operation = await createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId,
    scope: chargingProfileSet.scope,
    action: "set_charging_profile",
    request,
  });
  // The operation's id, unless it settled at once (offline) and already wrote its own.
  await db.chargingProfile.updateMany({
    where: { id: row.id, operationId: "" },
    data: { operationId: operation.id },
  });
  return operation;
}

export function setChargingProfile(o: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: SetProfileInput;
  principal: TenantPrincipal;
}) {
  return installChargingProfile({ ...o, apiKeyId: o.principal.actorId });
}

/**
 * Clears profiles on the charger, as a `station.charging_profile_clear` operation: one by the
 * service's ID or its OCPP ID, or every profile matching the criteria.
 */
export async function clearChargingProfiles({
  db,
  tenantId,
  stationId,
  input,
  principal,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: ClearProfilesInput;
  principal: TenantPrincipal;
}) {
  await stationFor(db, tenantId, stationId);
  const byId = input.profile_id !== undefined || input.charging_profile_id !== undefined;
  const criteria =
    input.connector_id !== undefined ||
    input.evse_number !== undefined ||
    input.purpose !== undefined ||
    input.stack_level !== undefined;
  if (input.profile_id !== undefined && input.charging_profile_id !== undefined)
    throw invalid([
      { field: "charging_profile_id", message: "must be absent when profile_id names the profile" },
    ]);
  if (byId && criteria)
    throw invalid([
      {
        field: input.profile_id !== undefined ? "profile_id" : "charging_profile_id",
        message:
          "clears one profile: send it without connector_id, evse_number, purpose or stack_level",
      },
    ]);
  let request: ClearRequest;
  if (input.profile_id !== undefined) {
    const row = await db.chargingProfile.findFirst({
      where: { id: input.profile_id, stationId, tenantId },
    });
    if (!row) throw notFound("charging profile");
    request = { charging_profile_id: row.chargingProfileId };
  } else if (input.charging_profile_id !== undefined) {
    request = { charging_profile_id: input.charging_profile_id };
  } else {
    const target = await resolveTarget(db, stationId, input);
    request = {
      ...(target ? { target } : {}),
      ...(input.purpose ? { purpose: input.purpose } : {}),
      ...(input.stack_level !== undefined ? { stack_level: input.stack_level } : {}),
    };
  }
  await lockStation(db, stationId);
  return createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId: principal.actorId,
    scope: chargingProfileClear.scope,
    action: "clear_charging_profile",
    request,
  });
}

/** Reads a composite schedule, as a `station.composite_schedule` operation. */
export async function readCompositeSchedule({
  db,
  tenantId,
  stationId,
  input,
  principal,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: CompositeScheduleInput;
  principal: TenantPrincipal;
}) {
  const station = await stationFor(db, tenantId, stationId);
  const target = (await resolveTarget(db, stationId, input)) ?? STATION;
  if (station.protocol === "ocpp1.6" && target.v16_connector === null)
    throw invalid([
      {
        field: "evse_number",
        message: "names an EVSE of several connectors: OCPP 1.6 addresses one connector",
      },
    ]);
  const request: CompositeRequest = {
    target,
    duration: input.duration,
    ...(input.unit ? { unit: input.unit } : {}),
  };
  return createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId: principal.actorId,
    scope: compositeScheduleRead.scope,
    action: "get_composite_schedule",
    request,
  });
}

/**
 * The profiles the service set on a station, newest first: by default those it believes are (or
 * may be) installed (`pending`, `installed`, `unknown`); `all` adds rejected, replaced and cleared.
 */
export async function listChargingProfiles({
  db,
  tenantId,
  stationId,
  all = false,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  all?: boolean;
}) {
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    select: { chargingProfilesReport: true },
  });
  if (!station) throw notFound("station");
  const rows = await db.chargingProfile.findMany({
    where: {
      tenantId,
      stationId,
      ...(all ? {} : { state: { in: ["pending", "installed", "unknown"] } }),
    },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: 200,
  });
  return {
    data: rows.map(presentChargingProfile),
    charger_report: (station.chargingProfilesReport ?? null) as ChargingProfilesReport,
  };
}

/**
 * Asks an OCPP 2.x charger for the profiles it holds, as a `station.charging_profiles_report`
 * operation; the station's `charging_profiles_report` is opened for its request ID (`waiting`)
 * in the same transaction, so a report the charger sends at once always finds it. 422 for a
 * station that speaks OCPP 1.6 (no such call).
 */
export async function reportChargingProfiles({
  db,
  tenantId,
  stationId,
  input,
  principal,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: ReportProfilesInput;
  principal: TenantPrincipal;
}) {
  const station = await stationFor(db, tenantId, stationId);
  if (station.protocol === "ocpp1.6")
    throw invalid([
      {
        field: "station_id",
        message:
          "speaks OCPP 1.6, which has no GetChargingProfiles: read the composite schedule instead",
      },
    ]);
  const request: ReportRequest = {
    request_id: randomInt(1, 2 ** 31 - 1),
    ...(input.evse_number !== undefined ? { evse_number: input.evse_number } : {}),
    ...(input.purpose ? { purpose: input.purpose } : {}),
    ...(input.stack_level !== undefined ? { stack_level: input.stack_level } : {}),
  };
  await lockStation(db, stationId);
  const operation = await createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId: principal.actorId,
    scope: chargingProfilesReport.scope,
    action: "get_charging_profiles",
    request,
  });
  const report: NonNullable<ChargingProfilesReport> = {
    operation_id: operation.id,
    request_id: request.request_id,
    requested_at: operation.created_at,
    state:
      operation.status === "dispatching"
        ? "waiting"
        : operation.status === "succeeded"
          ? "complete"
          : operation.status,
    profiles: [],
  };
  await db.station.update({
    where: { id: stationId },
    data: { chargingProfilesReport: report },
  });
  return operation;
}
