import type { Operation } from "../generated/prisma/client";
import { requestRecomputeForStation } from "../site-limits/trigger";
import { byChargerStatus, refuse, type OperationKind } from "../operations/kinds/kind";
import {
  ocppProfile,
  profileIssues,
  v2Purpose,
  type NeutralProfile,
  type Purpose,
  type Target,
} from "./profile-schema";

/**
 * What a set operation keeps: the profile row it installs, the profile, and who set it when not
 * the API (`site_limit`: its answer asks for the location's recomputation).
 */
export type SetRequest = { profile_id: string; profile: NeutralProfile; source?: string };
/** What a clear operation keeps: one OCPP ID, or criteria (none: every profile). */
export type ClearRequest = {
  charging_profile_id?: number;
  target?: Target;
  purpose?: Purpose;
  stack_level?: number;
};
export type CompositeRequest = { target: Target; duration: number; unit?: "A" | "W" };

const ACCEPTED = new Set(["Accepted"]);
/** 2.x answers may carry a reason; kept with the charger's status. */
const withReason = (
  outcome: ReturnType<typeof byChargerStatus>,
  answer: unknown,
): ReturnType<typeof byChargerStatus> => {
  const info = (answer as { statusInfo?: { reasonCode: string; additionalInfo?: string } })
    .statusInfo;
  if (!info) return outcome;
  return { ...outcome, result: { ...outcome.result, charger_reason: info.reasonCode } };
};

const STATE_OF = { succeeded: "installed", rejected: "rejected", unknown: "unknown" } as const;

/**
 * Installs a charging profile: OCPP 1.6 SetChargingProfile (`connectorId`, `csChargingProfiles`),
 * OCPP 2.0.1 SetChargingProfile (`evseId`, `chargingProfile` with one schedule). The profile was
 * checked against the protocol the station last spoke when it was asked; it is checked again
 * against the one it speaks now (a refusal sends nothing). When it settles, the service's row
 * for it (`charging_profiles`) takes the outcome: installed, rejected or unknown, with the
 * charger's answer; an installed profile replaces the rows of the same target, purpose and stack
 * level (what the charger itself does).
 */
export const chargingProfileSet: OperationKind = {
  scope: "station.charging_profile_set",
  carriesSecret: false,
  build({ operation, station }) {
    const { profile } = operation.request as unknown as SetRequest;
    const issues = profileIssues(profile, station.protocol);
    if (issues.length)
      return Promise.resolve(
        refuse(
          "protocol_mismatch",
          `The profile does not fit ${station.protocol}: ${issues.map((i) => `${i.field} ${i.message}`).join("; ")}.`,
          { fields: issues },
        ),
      );
    if (station.protocol === "ocpp1.6")
      return Promise.resolve({
        action: "SetChargingProfile",
        payload: {
          connectorId: profile.v16_connector!,
          csChargingProfiles: ocppProfile(profile, station.protocol),
        },
      });
    return Promise.resolve({
      action: "SetChargingProfile",
      payload: {
        evseId: profile.evse_number,
        chargingProfile: ocppProfile(profile, station.protocol),
      },
    });
  },
  interpret(answer) {
    return withReason(
      byChargerStatus((answer as { status?: unknown }).status, answer, ACCEPTED),
      answer,
    );
  },
  async onSettled(tx, operation, outcome) {
    const { profile_id: id, profile, source } = operation.request as unknown as SetRequest;
    if (source === "site_limit" && operation.stationId)
      await requestRecomputeForStation(tx, operation.stationId);
    const chargerStatus = (outcome.result.charger_status as string | undefined) ?? null;
    const state = STATE_OF[outcome.status];
    const updated = await tx.chargingProfile.updateMany({
      // a later set of the same ID took the row over: leave it to that one; a TxProfile whose
      // transaction ended meanwhile stays `ended` (the charger dropped it)
      where: { id, operationId: { in: [operation.id, ""] }, state: { not: "ended" } },
      data: { state, chargerStatus, operationId: operation.id },
    });
    if (state !== "installed" || !updated.count || !operation.stationId) return;
    await tx.chargingProfile.updateMany({
      where: {
        stationId: operation.stationId,
        id: { not: id },
        evseNumber: profile.evse_number,
        purpose: profile.purpose,
        stackLevel: profile.stack_level,
        state: { in: ["installed", "pending", "unknown"] },
      },
      data: { state: "replaced", operationId: operation.id },
    });
  },
};

function clearPayload(request: ClearRequest, protocol: string) {
  const v16 = protocol === "ocpp1.6";
  if (request.charging_profile_id !== undefined)
    return v16
      ? { id: request.charging_profile_id }
      : { chargingProfileId: request.charging_profile_id };
  const where = request.target;
  if (v16) {
    return {
      ...(where ? { connectorId: where.v16_connector } : {}),
      ...(request.purpose ? { chargingProfilePurpose: request.purpose } : {}),
      ...(request.stack_level !== undefined ? { stackLevel: request.stack_level } : {}),
    };
  }
  const criteria = {
    ...(where ? { evseId: where.evse_number } : {}),
    ...(request.purpose ? { chargingProfilePurpose: v2Purpose(request.purpose) } : {}),
    ...(request.stack_level !== undefined ? { stackLevel: request.stack_level } : {}),
  };
  return Object.keys(criteria).length ? { chargingProfileCriteria: criteria } : {};
}

/**
 * Clears charging profiles: OCPP 1.6 ClearChargingProfile (`id`, or `connectorId`,
 * `chargingProfilePurpose`, `stackLevel`), OCPP 2.0.1 ClearChargingProfile (`chargingProfileId`,
 * or `chargingProfileCriteria`). `Accepted` and `Unknown` (the charger held no such profile)
 * both succeed: either way none is installed any more, and the service's matching rows become
 * `cleared` with the charger's word.
 */
export const chargingProfileClear: OperationKind = {
  scope: "station.charging_profile_clear",
  carriesSecret: false,
  build({ operation, station }) {
    const request = operation.request as unknown as ClearRequest;
    if (station.protocol === "ocpp1.6" && request.target && request.target.v16_connector === null)
      return Promise.resolve(
        refuse(
          "protocol_mismatch",
          "evse_number names an EVSE of several connectors: OCPP 1.6 addresses one connector.",
        ),
      );
    return Promise.resolve({
      action: "ClearChargingProfile",
      payload: clearPayload(request, station.protocol),
    });
  },
  interpret(answer) {
    return withReason(
      byChargerStatus(
        (answer as { status?: unknown }).status,
        answer,
        new Set(["Accepted", "Unknown"]),
      ),
      answer,
    );
  },
  async onSettled(tx, operation, outcome) {
    if (outcome.status !== "succeeded" || !operation.stationId) return;
    await tx.chargingProfile.updateMany({
      where: {
        ...matching(operation),
        state: { in: ["installed", "pending", "unknown"] },
      },
      data: {
        state: "cleared",
        chargerStatus: outcome.result.charger_status as string,
        operationId: operation.id,
      },
    });
  },
};

/** The service's rows a clear applies to (OCPP's rule: every criterion given must match). */
function matching(operation: Operation) {
  const request = operation.request as unknown as ClearRequest;
  if (request.charging_profile_id !== undefined)
    return { stationId: operation.stationId!, chargingProfileId: request.charging_profile_id };
  return {
    stationId: operation.stationId!,
    ...(request.target ? { evseNumber: request.target.evse_number } : {}),
    ...(request.purpose ? { purpose: request.purpose } : {}),
    ...(request.stack_level !== undefined ? { stackLevel: request.stack_level } : {}),
  };
}

type Period = { startPeriod: number; limit: number; numberPhases?: number };
type V16Composite = {
  status: string;
  connectorId?: number;
  scheduleStart?: string;
  chargingSchedule?: {
    duration?: number;
    startSchedule?: string;
    chargingRateUnit: string;
    chargingSchedulePeriod: Period[];
    minChargingRate?: number;
  };
};
type V2Composite = {
  status: string;
  schedule?: {
    evseId: number;
    duration: number;
    scheduleStart: string;
    chargingRateUnit: string;
    chargingSchedulePeriod: Period[];
  };
};

/** A composite schedule in the neutral shape (null: the charger gave none). */
function compositeSchedule(answer: unknown, protocol: string) {
  const periods = (list: Period[]) =>
    list.map((p) => ({
      start: p.startPeriod,
      limit: p.limit,
      ...(p.numberPhases !== undefined ? { phases: p.numberPhases } : {}),
    }));
  if (protocol === "ocpp1.6") {
    const a = answer as V16Composite;
    if (!a.chargingSchedule) return null;
    const s = a.chargingSchedule;
    return {
      start: a.scheduleStart ?? s.startSchedule ?? null,
      duration: s.duration ?? null,
      unit: s.chargingRateUnit,
      ...(s.minChargingRate !== undefined ? { min_rate: s.minChargingRate } : {}),
      periods: periods(s.chargingSchedulePeriod),
    };
  }
  const s = (answer as V2Composite).schedule;
  if (!s) return null;
  return {
    start: s.scheduleStart,
    duration: s.duration,
    unit: s.chargingRateUnit,
    periods: periods(s.chargingSchedulePeriod),
  };
}

/**
 * Reads the composite schedule of a connector, an EVSE or the station: OCPP 1.6
 * GetCompositeSchedule (`connectorId`), OCPP 2.0.1 GetCompositeSchedule (`evseId`). The answer is
 * the result, in the neutral shape (`result.schedule`: start, duration, unit, periods), beside the
 * charger's own `response`. Nothing is kept but the operation.
 */
export const compositeScheduleRead: OperationKind = {
  scope: "station.composite_schedule",
  carriesSecret: false,
  build({ operation, station }) {
    const { target, duration, unit } = operation.request as unknown as CompositeRequest;
    const rate = unit ? { chargingRateUnit: unit } : {};
    if (station.protocol === "ocpp1.6") {
      if (target.v16_connector === null)
        return Promise.resolve(
          refuse(
            "protocol_mismatch",
            "evse_number names an EVSE of several connectors: OCPP 1.6 addresses one connector.",
          ),
        );
      return Promise.resolve({
        action: "GetCompositeSchedule",
        payload: { connectorId: target.v16_connector, duration, ...rate },
      });
    }
    return Promise.resolve({
      action: "GetCompositeSchedule",
      payload: { duration, ...rate, evseId: target.evse_number },
    });
  },
  interpret(answer, protocol) {
    const outcome = withReason(
      byChargerStatus((answer as { status?: unknown }).status, answer, ACCEPTED),
      answer,
    );
    if (outcome.status !== "succeeded") return outcome;
    return {
      status: "succeeded",
      result: { ...outcome.result, schedule: compositeSchedule(answer, protocol) },
    };
  },
};

/** What a report operation keeps: the request ID the charger's reports will carry. */
export type ReportRequest = {
  request_id: number;
  evse_number?: number;
  purpose?: Purpose;
  stack_level?: number;
};

/**
 * Asks an OCPP 2.x charger which profiles it holds (every source's, not only the service's):
 * GetChargingProfiles with a `requestId`. `Accepted` (reports follow) and `NoProfiles` both
 * succeed. The reports (ReportChargingProfiles, `tbc` until the last) are recorded by the
 * gateway's handler (`./reported-profiles.ts`) on the station's `charging_profiles_report`, which
 * the service opened for this request ID; `NoProfiles` completes it empty. OCPP 1.6 has no such
 * call: refused.
 */
export const chargingProfilesReport: OperationKind = {
  scope: "station.charging_profiles_report",
  carriesSecret: false,
  build({ operation, station }) {
    const request = operation.request as unknown as ReportRequest;
    if (station.protocol === "ocpp1.6")
      return Promise.resolve(
        refuse(
          "protocol_unsupported",
          "OCPP 1.6 has no GetChargingProfiles: read the composite schedule instead.",
        ),
      );
    return Promise.resolve({
      action: "GetChargingProfiles",
      payload: {
        requestId: request.request_id,
        ...(request.evse_number !== undefined ? { evseId: request.evse_number } : {}),
        chargingProfile: {
          ...(request.purpose ? { chargingProfilePurpose: v2Purpose(request.purpose) } : {}),
          ...(request.stack_level !== undefined ? { stackLevel: request.stack_level } : {}),
        },
      },
    });
  },
  interpret(answer) {
    return withReason(
      byChargerStatus(
        (answer as { status?: unknown }).status,
        answer,
        new Set(["Accepted", "NoProfiles"]),
      ),
      answer,
    );
  },
  async onSettled(tx, operation, outcome) {
    if (!operation.stationId) return;
    const noProfiles = outcome.result.charger_status === "NoProfiles";
    const state = outcome.status !== "succeeded" ? outcome.status : noProfiles ? "complete" : null;
    if (!state) return;
    await tx.$executeRaw`
      UPDATE stations
      SET charging_profiles_report = charging_profiles_report || jsonb_build_object('state', ${state}::text)
      WHERE id = ${operation.stationId}
        AND charging_profiles_report->>'operation_id' = ${operation.id}
        AND charging_profiles_report->>'state' = 'waiting'`;
  },
};
