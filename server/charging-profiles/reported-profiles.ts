import { z } from "zod";
import type { ChargerContext } from "../charging/connections";
import type { DbTx } from "../db";
import { neutralPurpose } from "./profile-schema";

/** An OCPP 2.x ChargingProfileType as the charger reports it (schema-valid by then). */
type V2Profile = {
  id: number;
  stackLevel: number;
  chargingProfilePurpose: string;
  chargingProfileKind: string;
  recurrencyKind?: string;
  validFrom?: string;
  validTo?: string;
  transactionId?: string;
  chargingSchedule: {
    startSchedule?: string;
    duration?: number;
    chargingRateUnit: string;
    minChargingRate?: number;
    chargingSchedulePeriod: { startPeriod: number; limit: number; numberPhases?: number }[];
  }[];
};
export type ReportChargingProfilesPayload = {
  requestId: number;
  chargingLimitSource: string;
  evseId: number;
  tbc?: boolean;
  chargingProfile: V2Profile[];
};

/** One reported profile, in the neutral shape (as GET …/charging-profiles shows it). */
export const reportedProfileSchema = z.object({
  charging_profile_id: z.number().int(),
  evse_number: z.number().int(),
  source: z
    .string()
    .describe("the charger's chargingLimitSource: CSO (this service), EMS, SO, Other"),
  purpose: z.string().describe("OCPP 1.6 names; `ChargingStationExternalConstraints` as reported"),
  stack_level: z.number().int(),
  kind: z.string(),
  recurrency: z.string().nullable(),
  valid_from: z.string().nullable(),
  valid_to: z.string().nullable(),
  charger_transaction_id: z.string().nullable(),
  schedules: z.array(
    z.object({
      unit: z.string(),
      start: z.string().nullable(),
      duration: z.number().nullable(),
      min_rate: z.number().nullable(),
      periods: z.array(
        z.object({ start: z.number(), limit: z.number(), phases: z.number().optional() }),
      ),
    }),
  ),
});

export const chargingProfilesReportSchema = z
  .object({
    operation_id: z.string(),
    request_id: z.number().int(),
    requested_at: z.string(),
    state: z
      .enum(["waiting", "complete", "rejected", "unknown"])
      .describe(
        "waiting: reports may still come (the last has `tbc` false); complete; rejected or unknown: the request itself failed",
      ),
    profiles: z.array(reportedProfileSchema),
  })
  .nullable()
  .describe(
    "the last GetChargingProfiles (OCPP 2.x) and what the charger reported; null before one",
  );
export type ChargingProfilesReport = z.infer<typeof chargingProfilesReportSchema>;

const present = (source: string, evseId: number, p: V2Profile) => ({
  charging_profile_id: p.id,
  evse_number: evseId,
  source,
  purpose: neutralPurpose(p.chargingProfilePurpose) ?? p.chargingProfilePurpose,
  stack_level: p.stackLevel,
  kind: p.chargingProfileKind,
  recurrency: p.recurrencyKind ?? null,
  valid_from: p.validFrom ?? null,
  valid_to: p.validTo ?? null,
  charger_transaction_id: p.transactionId ?? null,
  schedules: p.chargingSchedule.map((s) => ({
    unit: s.chargingRateUnit,
    start: s.startSchedule ?? null,
    duration: s.duration ?? null,
    min_rate: s.minChargingRate ?? null,
    periods: s.chargingSchedulePeriod.map((x) => ({
      start: x.startPeriod,
      limit: x.limit,
      ...(x.numberPhases !== undefined ? { phases: x.numberPhases } : {}),
    })),
  })),
});

/**
 * A ReportChargingProfiles (OCPP 2.x) from the charger: its profiles are appended to the
 * station's open report of that request ID (one statement, so reports arriving together all
 * land); the last (`tbc` false or absent) completes it. A report of no request the service made
 * (or an older one) is acknowledged and not kept.
 */
export async function chargingProfilesReported(
  tx: DbTx,
  charger: ChargerContext,
  p: ReportChargingProfilesPayload,
) {
  const profiles = p.chargingProfile.map((x) => present(p.chargingLimitSource, p.evseId, x));
  await tx.$executeRaw`
    UPDATE stations
    SET charging_profiles_report = charging_profiles_report
      || jsonb_build_object(
           'profiles', (charging_profiles_report->'profiles') || ${JSON.stringify(profiles)}::jsonb,
           'state', CASE WHEN ${p.tbc ?? false} THEN charging_profiles_report->>'state' ELSE 'complete' END)
    WHERE id = ${charger.stationId}
      AND (charging_profiles_report->>'request_id')::int = ${p.requestId}`;
}
