import { z } from "zod";

/**
 * The protocol-neutral charging profile (README.md): one shape for OCPP 1.6 and 2.x, with the
 * 1.6 purpose names. The 2.x names are accepted and mapped (`ChargingStationMaxProfile` is
 * `ChargePointMaxProfile`); `ChargingStationExternalConstraints` is set by an energy manager
 * beside the charger, never by the service, so it is refused.
 */
export const PURPOSES = ["ChargePointMaxProfile", "TxDefaultProfile", "TxProfile"] as const;
export type Purpose = (typeof PURPOSES)[number];
const V2_PURPOSE: Record<Purpose, string> = {
  ChargePointMaxProfile: "ChargingStationMaxProfile",
  TxDefaultProfile: "TxDefaultProfile",
  TxProfile: "TxProfile",
};
export const v2Purpose = (p: Purpose) => V2_PURPOSE[p];
/** A purpose in either protocol's name, as the 1.6 name the service keeps. */
export function neutralPurpose(name: string): Purpose | null {
  if (name === "ChargingStationMaxProfile") return "ChargePointMaxProfile";
  return (PURPOSES as readonly string[]).includes(name) ? (name as Purpose) : null;
}

const purposeInput = z
  .enum([...PURPOSES, "ChargingStationMaxProfile"])
  .transform((p) => neutralPurpose(p)!)
  .describe(
    "OCPP 1.6 names; the OCPP 2.x name `ChargingStationMaxProfile` is accepted as `ChargePointMaxProfile`",
  );

const dateTime = z.iso.datetime({ offset: true });
/** OCPP integers are 32-bit (the schemas say `integer`; chargers hold them in an int). */
const int32 = z
  .number()
  .int()
  .max(2 ** 31 - 1);

export const periodSchema = z.strictObject({
  start: int32.min(0).describe("seconds from the schedule's start (startPeriod)"),
  limit: z.number().min(0).max(1_000_000).describe("in the schedule's unit (A or W)"),
  phases: z.number().int().min(1).max(3).optional().describe("numberPhases; absent: 3"),
});

export const scheduleSchema = z.strictObject({
  unit: z.enum(["A", "W"]).describe("chargingRateUnit"),
  start: dateTime.optional().describe("startSchedule; required for Recurring, absent for Relative"),
  duration: int32.min(1).optional().describe("seconds; absent: the last period lasts"),
  min_rate: z.number().min(0).max(1_000_000).optional().describe("minChargingRate, in `unit`"),
  periods: z.array(periodSchema).min(1).max(1024).describe("chargingSchedulePeriod"),
});

/** Where a profile, a clear or a composite schedule applies: a connector, an EVSE, or the station. */
export const targetFields = {
  connector_id: int32
    .min(1)
    .optional()
    .describe(
      "one connector, by its ID as the station shows it (OCPP 1.6: its connectorId; OCPP 2.x: its EVSE)",
    ),
  evse_number: int32
    .min(0)
    .optional()
    .describe(
      "one EVSE, by the `evse_number` its connectors show (OCPP 2.x evseId; OCPP 1.6: its one connector); 0, or neither field: the whole station",
    ),
};

/** A target resolved against the station's rows: what each protocol addresses. */
export type Target = {
  connector_id: number | null;
  evse_number: number;
  /** OCPP 1.6 connectorId (0: the station); null: an EVSE of several connectors (not in 1.6) */
  v16_connector: number | null;
};

export const setProfileBody = z.strictObject({
  ...targetFields,
  charging_profile_id: int32
    .min(1)
    .optional()
    .describe(
      "the OCPP chargingProfileId; absent: the service picks the next free one of the station. A profile the service set with this ID is replaced.",
    ),
  purpose: purposeInput,
  stack_level: int32.min(0).describe("stackLevel; the higher level wins"),
  kind: z.enum(["Absolute", "Recurring", "Relative"]).describe("chargingProfileKind"),
  recurrency: z.enum(["Daily", "Weekly"]).optional().describe("recurrencyKind, for Recurring"),
  valid_from: dateTime.optional(),
  valid_to: dateTime.optional(),
  transaction_id: int32
    .min(1)
    .optional()
    .describe("a TxProfile's running transaction (the API's transaction ID) on the target"),
  schedule: scheduleSchema,
});
export type SetProfileInput = z.infer<typeof setProfileBody>;

/** What a set operation keeps and the profile row shows: the profile, resolved to its target. */
export type NeutralProfile = Omit<
  SetProfileInput,
  "transaction_id" | "charging_profile_id" | "connector_id" | "evse_number"
> &
  Target & {
    charging_profile_id: number;
    /** the running transaction: the API's ID and the charger's own identifier */
    transaction: { id: number; reference: string } | null;
  };

export const clearProfilesBody = z
  .strictObject({
    profile_id: z
      .string()
      .regex(/^cpr_[A-Za-z0-9]{1,60}$/, "must be a charging profile ID (cpr_…)")
      .optional()
      .describe("one profile the service set, by its ID; alone"),
    charging_profile_id: int32.min(1).optional().describe("the OCPP chargingProfileId; alone"),
    ...targetFields,
    purpose: purposeInput.optional(),
    stack_level: int32.min(0).optional(),
  })
  .describe(
    "One profile (`profile_id` or `charging_profile_id`), or every profile matching the criteria (`connector_id`/`evse_number`, `purpose`, `stack_level`); an empty body clears every profile on the charger.",
  );
export type ClearProfilesInput = z.infer<typeof clearProfilesBody>;

export const reportProfilesBody = z.strictObject({
  evse_number: int32
    .min(0)
    .optional()
    .describe("only this EVSE's profiles (0: the station's own); absent: every profile"),
  purpose: purposeInput.optional(),
  stack_level: int32.min(0).optional(),
});
export type ReportProfilesInput = z.infer<typeof reportProfilesBody>;

export const compositeScheduleBody = z.strictObject({
  ...targetFields,
  duration: int32
    .min(1)
    .max(7 * 24 * 3600)
    .describe("seconds from now"),
  unit: z.enum(["A", "W"]).optional().describe("chargingRateUnit; absent: the charger's choice"),
});
export type CompositeScheduleInput = z.infer<typeof compositeScheduleBody>;

export const PROFILE_STATES = [
  "pending",
  "installed",
  "rejected",
  "unknown",
  "replaced",
  "cleared",
  "ended",
] as const;
export type ProfileState = (typeof PROFILE_STATES)[number];

export const chargingProfileSchema = z.object({
  id: z.string(),
  station_id: z.number().int(),
  charging_profile_id: z.number().int(),
  source: z.string().describe("`api`: set through this API"),
  evse_number: z.number().int().describe("0: the whole station"),
  connector_id: z.number().int().nullable().describe("the connector, when one was named"),
  purpose: z.enum(PURPOSES),
  stack_level: z.number().int(),
  kind: z.string(),
  recurrency: z.string().nullable(),
  valid_from: z.string().nullable(),
  valid_to: z.string().nullable(),
  transaction_id: z.number().int().nullable(),
  schedule: scheduleSchema,
  state: z
    .enum(PROFILE_STATES)
    .describe(
      "pending: sent, no answer yet; installed: the charger accepted it; rejected: refused (by the charger, or never sent: offline); unknown: sent, no confirmed answer; replaced: a later profile took its purpose, stack level and target (or its ID); cleared: the charger cleared it (or answered it had none); ended: a TxProfile whose transaction ended (the charger drops it then)",
    ),
  charger_status: z.string().nullable().describe("the charger's last answer about it"),
  operation_id: z.string().describe("the operation that last changed its state"),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ChargingProfileResource = z.infer<typeof chargingProfileSchema>;

export type Issue = { field: string; message: string };

/**
 * What a profile breaks of the rules both protocols share (OCPP 1.6 section 3.13, OCPP 2.0.1
 * K01), each issue a field and a sentence. `protocol` null: not known yet (the station never
 * connected): the shared rules only; the protocol's own are checked again before it is sent.
 */
export function profileIssues(p: NeutralProfile, protocol: string | null): Issue[] {
  const issues: Issue[] = [];
  const add = (field: string, message: string) => issues.push({ field, message });
  const s = p.schedule;
  if (s.periods[0]!.start !== 0)
    add("schedule.periods.0.start", "must be 0: the first period starts with the schedule");
  s.periods.forEach((period, i) => {
    if (i > 0 && period.start <= s.periods[i - 1]!.start)
      add(`schedule.periods.${i}.start`, "must be later than the period before it");
    if (s.duration !== undefined && period.start >= s.duration)
      add(`schedule.periods.${i}.start`, "must be within the schedule's duration");
  });
  if (p.kind === "Recurring") {
    if (!p.recurrency) add("recurrency", "is required for a Recurring profile (Daily or Weekly)");
    if (!s.start) add("schedule.start", "is required for a Recurring profile");
    const cycle = p.recurrency === "Weekly" ? 7 * 86400 : 86400;
    if (s.duration !== undefined && s.duration > cycle)
      add("schedule.duration", `must not exceed the recurrence (${cycle} seconds)`);
  } else if (p.recurrency) add("recurrency", "is only for a Recurring profile");
  if (p.kind === "Relative" && s.start)
    add("schedule.start", "must be absent for a Relative profile: it starts with the transaction");
  if (p.valid_from && p.valid_to && Date.parse(p.valid_to) <= Date.parse(p.valid_from))
    add("valid_to", "must be later than valid_from");
  if (p.valid_to && Date.parse(p.valid_to) <= Date.now()) add("valid_to", "must be in the future");
  if (p.purpose === "ChargePointMaxProfile" && p.evse_number !== 0)
    add(
      p.connector_id !== null ? "connector_id" : "evse_number",
      "must be absent (or evse_number 0) for ChargePointMaxProfile: it limits the whole station",
    );
  if (p.purpose === "TxProfile") {
    if (p.evse_number === 0)
      add(
        "evse_number",
        "must name a connector or EVSE for a TxProfile: it limits one transaction",
      );
    if (p.kind === "Recurring") add("kind", "must not be Recurring for a TxProfile");
  } else if (p.transaction) add("transaction_id", "is only for a TxProfile");
  if (s.min_rate !== undefined && s.periods.some((x) => x.limit < s.min_rate!))
    add("schedule.min_rate", "must not exceed any period's limit");
  if (protocol === "ocpp1.6") {
    if (p.v16_connector === null)
      add(
        "evse_number",
        "names an EVSE of several connectors: OCPP 1.6 addresses one connector (connector_id)",
      );
    const tenth = (n: number) => Math.abs(Math.round(n * 10) - n * 10) < 1e-9;
    s.periods.forEach((period, i) => {
      if (!tenth(period.limit))
        add(`schedule.periods.${i}.limit`, "must be a multiple of 0.1 for OCPP 1.6");
    });
    if (s.min_rate !== undefined && !tenth(s.min_rate))
      add("schedule.min_rate", "must be a multiple of 0.1 for OCPP 1.6");
    if (p.transaction && !/^-?\d{1,10}$/.test(p.transaction.reference))
      add("transaction_id", "is not an OCPP 1.6 transaction of this station (not an integer)");
  } else if (protocol) {
    if (p.purpose === "TxProfile" && !p.transaction)
      add("transaction_id", "is required for a TxProfile in OCPP 2.x");
    if (p.transaction && p.transaction.reference.length > 36)
      add("transaction_id", "names a transaction whose identifier is longer than OCPP 2.x allows");
  }
  return issues;
}

/** The OCPP 1.6 `csChargingProfiles` / 2.0.1 `chargingProfile` of a neutral profile. */
export function ocppProfile(p: NeutralProfile, protocol: string) {
  const s = p.schedule;
  const v16 = protocol === "ocpp1.6";
  const schedule = {
    ...(v16 ? {} : { id: p.charging_profile_id }),
    ...(s.start ? { startSchedule: s.start } : {}),
    ...(s.duration !== undefined ? { duration: s.duration } : {}),
    chargingRateUnit: s.unit,
    chargingSchedulePeriod: s.periods.map((x) => ({
      startPeriod: x.start,
      limit: x.limit,
      ...(x.phases !== undefined ? { numberPhases: x.phases } : {}),
    })),
    ...(s.min_rate !== undefined ? { minChargingRate: s.min_rate } : {}),
  };
  return {
    [v16 ? "chargingProfileId" : "id"]: p.charging_profile_id,
    ...(p.transaction
      ? { transactionId: v16 ? Number(p.transaction.reference) : p.transaction.reference }
      : {}),
    stackLevel: p.stack_level,
    chargingProfilePurpose: v16 ? p.purpose : v2Purpose(p.purpose),
    chargingProfileKind: p.kind,
    ...(p.recurrency ? { recurrencyKind: p.recurrency } : {}),
    ...(p.valid_from ? { validFrom: p.valid_from } : {}),
    ...(p.valid_to ? { validTo: p.valid_to } : {}),
    chargingSchedule: v16 ? schedule : [schedule],
  };
}
