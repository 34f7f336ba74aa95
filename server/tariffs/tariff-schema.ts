import { z } from "zod";
import { ocpiTariffFields, tariffSnapshotSchema } from "../pricing";
import { externalReference } from "../locations/location-schema";
import { resourceId } from "../lib/int4";

/** Fields of the tariff resource that are not part of the priced snapshot. */
export const tariffMetaSchema = z.object({
  name: z.string().trim().max(200).optional(),
  external_reference: externalReference.nullable().optional(),
});

/** Route-level body: any object; the handler validates it whole (422 `tariff_invalid`, every path). */
export const tariffBody = z.record(z.string(), z.unknown());
/** What the OpenAPI document shows for create and edit. */
export const tariffBodyDoc = tariffMetaSchema.extend(tariffSnapshotSchema.shape);

const ocpi = <T extends z.ZodType>(field: z.ZodOptional<T>) =>
  field
    .unwrap()
    .nullable()
    .optional()
    .describe("OCPI 2.2.1, kept as sent; 2026-10-15 responses, null when absent");

export const tariffSchema = z.object({
  id: z.number().int(),
  tenant_id: z.number().int(),
  name: z.string(),
  external_reference: z.string().nullable(),
  version: z
    .number()
    .int()
    .describe("increases with every edit; bills keep the version they priced against"),
  currency: z.literal("USD"),
  rate_minor_per_kwh: z
    .number()
    .int()
    .describe("simple tariffs: the energy price; complex tariffs: their base energy rate"),
  is_complex: z.boolean(),
  pricing_summary: z.string(),
  elements: z.array(z.unknown()).optional().describe("2026-10-15 responses"),
  tariff_alt_text: z.array(z.unknown()).optional().describe("2026-10-15 responses"),
  rules: z.unknown().optional().describe("2026-10-15 responses"),
  time_zone: z.string().nullable().optional().describe("2026-10-15 responses"),
  min_price: z
    .object({ excl_vat: z.number(), incl_vat: z.number().optional() })
    .nullable()
    .optional()
    .describe("2026-10-15 responses"),
  max_price: z
    .object({ excl_vat: z.number(), incl_vat: z.number().optional() })
    .nullable()
    .optional()
    .describe("2026-10-15 responses"),
  type: ocpi(ocpiTariffFields.type),
  tariff_alt_url: ocpi(ocpiTariffFields.tariff_alt_url),
  start_date_time: ocpi(ocpiTariffFields.start_date_time).describe(
    "OCPI 2.2.1: sessions starting before it are not priced (409 tariff_not_valid_at); 2026-10-15 responses, null when absent",
  ),
  end_date_time: ocpi(ocpiTariffFields.end_date_time).describe(
    "OCPI 2.2.1: sessions starting at or after it are not priced (409 tariff_not_valid_at); 2026-10-15 responses, null when absent",
  ),
  energy_mix: ocpi(ocpiTariffFields.energy_mix),
  tax_included: ocpi(ocpiTariffFields.tax_included),
  country_code: ocpi(ocpiTariffFields.country_code),
  party_id: ocpi(ocpiTariffFields.party_id),
  last_updated: ocpi(ocpiTariffFields.last_updated),
  created_at: z.string(),
  updated_at: z.string(),
});
export type TariffResource = z.infer<typeof tariffSchema>;

export const quoteBody = z.strictObject({
  energy_wh: z.number().int().min(0).max(10_000_000),
  duration_seconds: z
    .number()
    .int()
    .min(0)
    .max(31 * 86_400),
  start_at: z.iso.datetime({ offset: true }).optional().describe("default: now"),
  reservation_seconds: z
    .number()
    .int()
    .min(0)
    .max(31 * 86_400)
    .optional()
    .describe(
      "a used reservation from start_at for this long, priced by reservation elements; charging then starts when it ends",
    ),
});

/**
 * Readings and volumes are read exactly as the decimals their JSON numbers are, in any notation
 * (1e-7 is 0.0000001); bounded by the largest quantity a tariff restriction can name (1,000,000
 * A, kW, kWh or hours). Registers are Wh in a `bigint` column: any safe integer.
 */
const quantity = z.number().min(0).max(1_000_000);
const meterReading = z.strictObject({
  at: z.iso.datetime({ offset: true }),
  energy_wh: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  power_w: z.number().min(0).max(1_000_000_000).nullable().optional(),
  current_a: quantity.nullable().optional(),
});
const chargingPeriod = z.strictObject({
  start_date_time: z.iso.datetime({ offset: true }),
  dimensions: z.array(z.strictObject({ type: z.string(), volume: quantity })).max(20),
});

export const simulateBody = z
  .strictObject({
    tariff_id: resourceId.optional(),
    tariff: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("an inline tariff, validated like a created one"),
    session: z.union([
      z
        .strictObject({
          meter_values: z.array(meterReading).max(20_000),
          started_at: z.iso.datetime({ offset: true }).nullable().optional(),
          stopped_at: z.iso.datetime({ offset: true }).optional(),
          reservation: z
            .strictObject({
              started_at: z.iso.datetime({ offset: true }),
              ended_at: z.iso
                .datetime({ offset: true })
                .nullable()
                .optional()
                .describe(
                  "used: defaults to the session's start; expired: required (when it expired)",
                ),
              expired: z
                .boolean()
                .default(false)
                .describe("true: no session followed (then meter_values is empty)"),
            })
            .optional()
            .describe("the EVSE reserved for this driver before the session, or instead of one"),
        })
        .refine((m) => m.meter_values.length > 0 || m.reservation?.expired === true, {
          message: "needs at least one reading (none only for an expired reservation)",
          path: ["meter_values"],
        }),
      z
        .strictObject({
          charging_periods: z.array(chargingPeriod).min(1).max(20_000),
          start_date_time: z.iso.datetime({ offset: true }).nullable(),
          end_date_time: z.iso.datetime({ offset: true }),
        })
        .describe(
          "OCPI CDR style; a reservation is leading periods with RESERVATION_TIME (start_date_time is then its start), expired when the periods hold nothing else",
        ),
    ]),
  })
  .refine((b) => (b.tariff_id === undefined) !== (b.tariff === undefined), {
    message: "give exactly one of tariff_id and tariff",
    path: ["tariff_id"],
  });

const cents = z.number().int().describe("integer US cents");
const dimensionCost = z.strictObject({
  volume: z
    .number()
    .describe(
      "billed volume with step rounding: Wh (energy), seconds (time, parking_time, reservation) or a count (flat, reservation_fee)",
    ),
  step_rounding: z.number().describe("volume added by step_size rounding, same unit"),
  excl_vat_minor: cents.describe(
    "this line's share of the total: the column's exact sum rounded once, allocated by largest remainder",
  ),
  incl_vat_minor: cents,
  exact_excl_vat_minor: z.string().describe("exact cost before rounding, cents to 4 places"),
  exact_incl_vat_minor: z.string().describe("exact cost before rounding, cents to 4 places"),
});
const activityKind = z.enum(["charging", "idle", "waiting", "reservation"]);

/** What the quote and simulate routes answer: the pricing engine's result, with summaries. */
export const priceResultSchema = z.strictObject({
  tariff_id: z.number().int().nullable().describe("null for an inline tariff"),
  tariff_version: z.number().int().nullable().describe("the version priced; null when inline"),
  pricing_summary: z.string().describe("the tariff in one readable line"),
  price_summary: z
    .string()
    .describe(
      "the result in one readable line: energy, time, activity, totals and each non-zero dimension",
    ),
  billing_version: z.enum(["energy-v1", "elements-v1"]),
  currency: z.literal("USD"),
  energy_wh: z.number(),
  dimensions: z.strictObject({
    energy: dimensionCost,
    time: dimensionCost.describe("TIME, billed over charging"),
    parking_time: dimensionCost.describe("PARKING_TIME, billed over idle"),
    flat: dimensionCost.describe("the session's FLAT fee, once"),
    reservation: dimensionCost.describe("TIME of reservation elements, over the reserved time"),
    reservation_fee: dimensionCost.describe("FLAT of reservation elements, once"),
  }),
  price_bound: z.strictObject({
    applied: z.enum(["min_price", "max_price"]).nullable(),
    excl_vat_minor: cents.describe(
      "added (positive) or removed (negative) by the bound: the rounded bounded total minus the dimensions' lines",
    ),
    incl_vat_minor: cents,
  }),
  total: z
    .strictObject({ excl_vat_minor: cents, incl_vat_minor: cents })
    .describe(
      "each column's exact sum over the dimensions, bounded by min_price/max_price, rounded once (half up); equals the dimensions' lines plus price_bound",
    ),
  activity: z.strictObject({
    method: z.enum(["meter_values", "charging_periods"]),
    reason: z.enum(["no_energy", "reservation_expired"]).nullable(),
    start_known: z.boolean(),
    started_at: z.string(),
    ended_at: z.string(),
    charging_seconds: z.number(),
    idle_seconds: z.number(),
    waiting_seconds: z.number(),
    reservation: z
      .strictObject({
        status: z.enum(["used", "expired"]),
        started_at: z.string(),
        ended_at: z.string(),
        seconds: z.number().describe("reserved time"),
      })
      .nullable(),
    intervals: z.array(
      z.strictObject({
        kind: activityKind,
        start: z.string(),
        end: z.string(),
        seconds: z.number(),
        energy_wh: z.number(),
      }),
    ),
  }),
  periods: z.array(
    z.strictObject({
      start: z.string(),
      end: z.string(),
      activity: activityKind,
      seconds: z.number(),
      energy_wh: z.number(),
      energy_before_wh: z.number(),
      elements: z
        .strictObject({
          energy: z.number().int().nullable(),
          time: z.number().int().nullable(),
          parking_time: z.number().int().nullable(),
          flat: z.number().int().nullable(),
          reservation: z.number().int().nullable(),
          reservation_fee: z.number().int().nullable(),
        })
        .describe("index in `elements` of the element that priced each dimension; null when free"),
      cost_excl_vat_minor: z
        .string()
        .describe("this period's cost excl. VAT before step rounding, cents to 4 places"),
    }),
  ),
  warnings: z
    .array(
      z.strictObject({
        code: z.enum(["charging_period_before_start"]),
        message: z.string(),
        details: z.record(z.string(), z.unknown()),
      }),
    )
    .describe("input accepted as partners send it but worth a look; always present, often empty"),
});
