/**
 * The tariff snapshot: what a bill freezes and the engine prices. Either simple
 * (`rate_minor_per_kwh`, integer US cents per kWh) or complex (OCPI 2.2.1 `elements`).
 *
 * Units, as OCPI 2.2.1 has them so partners can be sent `elements` unchanged:
 * - `price_components[].price`, `min_price`, `max_price`: decimal amounts in the currency's MAJOR
 *   unit (US dollars), excluding VAT; prices per kWh (ENERGY), per hour (TIME, PARKING_TIME) or
 *   per session (FLAT). At most 4 decimal places; `min_price`/`max_price` in whole cents.
 * - `vat`: percent. `step_size`: Wh (ENERGY) or seconds (TIME, PARKING_TIME); defaults to 1; on
 *   FLAT it means nothing (OCPI gives FLAT no step unit), so any whole number is kept and ignored.
 * - restrictions: times "HH:MM" and dates "YYYY-MM-DD" in the tariff's `time_zone`; kWh, A, kW;
 *   durations in seconds. Every `min_*` is inclusive and every `max_*` exclusive.
 */
import { z } from "zod";
import { INT4_MAX } from "../lib/int4";
import { decimalPlaces, exact, mul, rat } from "./rational";
import { instantOf, ocpiTariffFields } from "./ocpi-fields";
import { isIanaTimeZone } from "./time-zone";

export { instantOf, ocpiTariffFields };

export const DIMENSION_TYPES = ["ENERGY", "TIME", "PARKING_TIME", "FLAT"] as const;
export type DimensionType = (typeof DIMENSION_TYPES)[number];

export const DAYS_OF_WEEK = [
  "MONDAY",
  "TUESDAY",
  "WEDNESDAY",
  "THURSDAY",
  "FRIDAY",
  "SATURDAY",
  "SUNDAY",
] as const;
export type DayOfWeek = (typeof DAYS_OF_WEEK)[number];

/** OCPI `reservation` restriction: an element that prices the reservation (used or expired). */
export const RESERVATION_RESTRICTIONS = ["RESERVATION", "RESERVATION_EXPIRES"] as const;

const LARGEST = 1_000_000; // sanity bound on any decimal quantity

function decimal(places: number) {
  return z
    .number()
    .min(0, "must not be negative")
    .max(LARGEST, `must be at most ${LARGEST}`)
    .refine((v) => decimalPlaces(v) <= places, `must have at most ${places} decimal places`);
}

const time = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a 24-hour local time "HH:MM" from 00:00 to 23:59');

const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date "YYYY-MM-DD"')
  .refine((v) => {
    const [y = 0, m = 0, d = 0] = v.split("-").map(Number);
    const parsed = new Date(Date.UTC(y, m - 1, d));
    return (
      parsed.getUTCFullYear() === y && parsed.getUTCMonth() === m - 1 && parsed.getUTCDate() === d
    );
  }, "is not a calendar date");

const seconds = z
  .number()
  .int("must be a whole number of seconds")
  .min(0, "must not be negative")
  .max(366 * 86_400, "must be at most a year");

export const priceComponentSchema = z
  .strictObject({
    type: z.enum(DIMENSION_TYPES, "must be ENERGY, TIME, PARKING_TIME or FLAT"),
    price: decimal(4),
    vat: decimal(2).max(100, "must be a percentage from 0 to 100").optional(),
    step_size: z
      .number()
      .int("must be a whole number (Wh or seconds)")
      .min(0, "must not be negative")
      .max(LARGEST, `must be at most ${LARGEST}`)
      .default(1),
  })
  .superRefine((c, ctx) => {
    if (c.type !== "FLAT" && c.step_size < 1) {
      ctx.addIssue({ code: "custom", path: ["step_size"], message: "must be at least 1" });
    }
  });

const RANGES = [
  ["min_kwh", "max_kwh"],
  ["min_current", "max_current"],
  ["min_power", "max_power"],
  ["min_duration", "max_duration"],
] as const;

export const restrictionsSchema = z
  .strictObject({
    start_time: time.optional(),
    end_time: time.optional(),
    start_date: date.optional(),
    end_date: date.optional(),
    min_kwh: decimal(4).optional(),
    max_kwh: decimal(4).optional(),
    min_current: decimal(4).optional(),
    max_current: decimal(4).optional(),
    min_power: decimal(4).optional(),
    max_power: decimal(4).optional(),
    min_duration: seconds.optional(),
    max_duration: seconds.optional(),
    day_of_week: z
      .array(z.enum(DAYS_OF_WEEK, "must be a day name such as MONDAY"))
      .min(1, "must name at least one day")
      .max(7)
      .optional(),
    reservation: z.enum(RESERVATION_RESTRICTIONS).optional(),
  })
  .superRefine((r, ctx) => {
    if (r.start_time !== undefined && r.start_time === r.end_time) {
      ctx.addIssue({
        code: "custom",
        path: ["end_time"],
        message: "must differ from start_time (an empty or full-day window is ambiguous)",
      });
    }
    if (r.start_date !== undefined && r.end_date !== undefined && r.end_date <= r.start_date) {
      ctx.addIssue({
        code: "custom",
        path: ["end_date"],
        message: "must be after start_date (end_date is exclusive)",
      });
    }
    for (const [lo, hi] of RANGES) {
      const a = r[lo];
      const b = r[hi];
      if (a !== undefined && b !== undefined && b <= a) {
        ctx.addIssue({ code: "custom", path: [hi], message: `must be greater than ${lo}` });
      }
    }
    if (r.day_of_week && new Set(r.day_of_week).size !== r.day_of_week.length) {
      ctx.addIssue({ code: "custom", path: ["day_of_week"], message: "must not repeat a day" });
    }
  });

export const tariffElementSchema = z
  .strictObject({
    price_components: z.array(priceComponentSchema).min(1, "must have at least one component"),
    restrictions: restrictionsSchema.optional(),
  })
  .superRefine((element, ctx) => {
    const seen = new Set<string>();
    element.price_components.forEach((c, i) => {
      if (seen.has(c.type)) {
        ctx.addIssue({
          code: "custom",
          path: ["price_components", i, "type"],
          message: `repeats ${c.type} within one element`,
        });
      }
      seen.add(c.type);
    });
  });

const priceSchema = z.strictObject({
  excl_vat: decimal(2),
  incl_vat: decimal(2).optional(),
});

const code = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1 to 64 letters, digits, '_', '.' or '-'");

const discount = {
  percent_off: decimal(2)
    .refine((v) => v > 0 && v <= 100, "must be more than 0 and at most 100")
    .optional(),
  amount_off_minor: z
    .number()
    .int("must be whole cents")
    .min(1, "must be at least 1")
    .max(INT4_MAX, `must be at most ${INT4_MAX}`)
    .optional(),
};

function oneDiscount(d: { percent_off?: number; amount_off_minor?: number }, ctx: z.RefinementCtx) {
  if ((d.percent_off === undefined) === (d.amount_off_minor === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["percent_off"],
      message: "give exactly one of percent_off or amount_off_minor",
    });
  }
}

export const rulesSchema = z
  .strictObject({
    group_discounts: z
      .array(z.strictObject({ pricing_group: code, ...discount }).superRefine(oneDiscount))
      .max(100)
      .optional(),
    merchant_validations: z
      .array(
        z
          .strictObject({ code, label: z.string().min(1).max(200).optional(), ...discount })
          .superRefine(oneDiscount),
      )
      .max(100)
      .optional(),
    /** Most a session may cost, incl. VAT, after discounts (integer cents). */
    session_cost_cap_minor: z
      .number()
      .int("must be whole cents")
      .min(0)
      .max(INT4_MAX, `must be at most ${INT4_MAX}`)
      .optional(),
    /**
     * A session drawing less than 1 Wh (`no_energy`): `charge` (default) still bills the FLAT
     * session fee and min_price; `waive` bills neither (README, decision 8).
     */
    flat_fee_without_energy: z.enum(["charge", "waive"], "must be charge or waive").optional(),
  })
  .superRefine((rules, ctx) => {
    const groups = new Set<string>();
    rules.group_discounts?.forEach((g, i) => {
      if (groups.has(g.pricing_group)) {
        ctx.addIssue({
          code: "custom",
          path: ["group_discounts", i, "pricing_group"],
          message: "repeats a pricing group",
        });
      }
      groups.add(g.pricing_group);
    });
    const codes = new Set<string>();
    rules.merchant_validations?.forEach((v, i) => {
      if (codes.has(v.code)) {
        ctx.addIssue({
          code: "custom",
          path: ["merchant_validations", i, "code"],
          message: "repeats a validation code",
        });
      }
      codes.add(v.code);
    });
  });

const LOCAL_TIME_RESTRICTIONS = [
  "start_time",
  "end_time",
  "start_date",
  "end_date",
  "day_of_week",
] as const;

export const tariffSnapshotSchema = z
  .strictObject({
    currency: z
      .literal("USD", {
        error: (issue) =>
          `must be USD: payments are in US dollars only, so a tariff in ${JSON.stringify(issue.input)} cannot be billed`,
      })
      .default("USD"),
    rate_minor_per_kwh: z
      .number()
      .int("must be whole cents per kWh")
      .min(0, "must not be negative")
      .max(LARGEST)
      .optional(),
    elements: z.array(tariffElementSchema).min(1, "must have at least one element").optional(),
    tariff_alt_text: z
      .array(
        z.strictObject({
          language: z.string().regex(/^[a-z]{2}$/, "must be an ISO 639-1 code such as en"),
          text: z.string().min(1).max(512),
        }),
      )
      .max(20)
      .optional(),
    time_zone: z
      .string()
      .refine(isIanaTimeZone, "must be an IANA time zone such as America/New_York")
      .optional(),
    min_price: priceSchema.optional(),
    max_price: priceSchema.optional(),
    rules: rulesSchema.optional(),
    ...ocpiTariffFields,
  })
  .superRefine((t, ctx) => {
    if (
      t.start_date_time !== undefined &&
      t.end_date_time !== undefined &&
      instantOf(t.end_date_time) <= instantOf(t.start_date_time)
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["end_date_time"],
        message: "must be after start_date_time",
      });
    }
    if (t.elements === undefined && t.rate_minor_per_kwh === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["rate_minor_per_kwh"],
        message: "is required when elements is absent (a simple tariff needs its ENERGY price)",
      });
    }
    if (t.elements && t.rate_minor_per_kwh !== undefined) {
      const rate = simpleRateOf(t.elements);
      if (rate !== null && rate !== t.rate_minor_per_kwh) {
        ctx.addIssue({
          code: "custom",
          path: ["rate_minor_per_kwh"],
          message: `must equal the single ENERGY price in elements (${rate} cents per kWh)`,
        });
      }
    }
    const usesLocalTime = t.elements?.some((e) =>
      LOCAL_TIME_RESTRICTIONS.some((k) => e.restrictions?.[k] !== undefined),
    );
    if (usesLocalTime && t.time_zone === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["time_zone"],
        message: "is required when restrictions use local times, dates or days",
      });
    }
    for (const key of ["excl_vat", "incl_vat"] as const) {
      const lo = t.min_price?.[key];
      const hi = t.max_price?.[key];
      if (lo !== undefined && hi !== undefined && hi < lo) {
        ctx.addIssue({
          code: "custom",
          path: ["max_price", key],
          message: `must not be below min_price.${key}`,
        });
      }
    }
    for (const bound of ["min_price", "max_price"] as const) {
      const p = t[bound];
      if (p?.incl_vat !== undefined && p.incl_vat < p.excl_vat) {
        ctx.addIssue({
          code: "custom",
          path: [bound, "incl_vat"],
          message: "must not be below excl_vat",
        });
      }
    }
  });

/**
 * The rate in cents per kWh when `elements` say nothing a simple tariff could not: one element,
 * no restrictions, one ENERGY component in whole cents, step 1 Wh, no VAT. Otherwise null.
 */
export function simpleRateOf(elements: readonly TariffElement[]): number | null {
  const [only, ...rest] = elements;
  if (!only || rest.length > 0) return null;
  if (only.restrictions && Object.keys(only.restrictions).length > 0) return null;
  const [c, ...others] = only.price_components;
  if (!c || others.length > 0 || c.type !== "ENERGY" || c.vat !== undefined || c.step_size !== 1) {
    return null;
  }
  const cents = mul(exact(c.price), rat(100n));
  return cents.d === 1n ? Number(cents.n) : null;
}

export type TariffSnapshot = z.output<typeof tariffSnapshotSchema>;
export type TariffInput = z.input<typeof tariffSnapshotSchema>;
export type TariffElement = z.output<typeof tariffElementSchema>;
export type PriceComponent = z.output<typeof priceComponentSchema>;
export type TariffRestrictions = z.output<typeof restrictionsSchema>;
export type TariffRules = z.output<typeof rulesSchema>;

export interface TariffIssue {
  /** Dotted path of the offending field, e.g. "elements.0.restrictions.start_time". */
  path: string;
  message: string;
}

export type TariffValidation =
  { ok: true; tariff: TariffSnapshot } | { ok: false; issues: TariffIssue[] };

/** Parses a tariff body; issues become a 422 `tariff_invalid` naming each path. */
export function validateTariff(input: unknown): TariffValidation {
  const result = tariffSnapshotSchema.safeParse(input);
  if (result.success) return { ok: true, tariff: result.data };
  const issues = result.error.issues.flatMap((issue) => {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: base ? `${base}.${key}` : key,
        message:
          !base && key === "id"
            ? "is the service's own: send an OCPI tariff's id as external_reference"
            : "is not a known field",
      }));
    }
    return [{ path: base, message: issue.message }];
  });
  return { ok: false, issues };
}
