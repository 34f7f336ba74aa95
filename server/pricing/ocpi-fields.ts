/**
 * The OCPI 2.2.1 Tariff object's fields that price nothing (validity dates aside) but are kept as
 * partners send them and returned in 2026-10-15 responses (README, decision 14).
 */
import { z } from "zod";

/**
 * An OCPI DateTime (RFC 3339, UTC; OCPI reads one without a zone designator as UTC). Kept as sent;
 * `instantOf` gives its epoch milliseconds.
 */
const OCPI_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/i;

export function instantOf(dateTime: string): number {
  return Date.parse(/(Z|[+-]\d{2}:\d{2})$/i.test(dateTime) ? dateTime : `${dateTime}Z`);
}

const dateTime = z
  .string()
  .regex(OCPI_DATE_TIME, 'must be an OCPI DateTime such as "2027-01-01T00:00:00Z"')
  .refine((v) => Number.isFinite(instantOf(v)), "is not a valid date and time");

const energyMixSchema = z.strictObject({
  is_green_energy: z.boolean(),
  energy_sources: z
    .array(
      z.strictObject({
        source: z.enum(
          ["NUCLEAR", "GENERAL_FOSSIL", "COAL", "GAS", "GENERAL_GREEN", "SOLAR", "WIND", "WATER"],
          "must be an OCPI EnergySourceCategory such as SOLAR",
        ),
        percentage: z.number().min(0).max(100, "must be a percentage from 0 to 100"),
      }),
    )
    .max(20)
    .optional(),
  environ_impact: z
    .array(
      z.strictObject({
        category: z.enum(
          ["NUCLEAR_WASTE", "CARBON_DIOXIDE"],
          "must be NUCLEAR_WASTE or CARBON_DIOXIDE",
        ),
        amount: z
          .number()
          .min(0, "must not be negative")
          .max(1_000_000, "must be at most 1000000 (g/kWh)"),
      }),
    )
    .max(20)
    .optional(),
  supplier_name: z.string().max(64).optional(),
  energy_product_name: z.string().max(64).optional(),
});

/**
 * OCPI 2.2.1 Tariff fields the service keeps and returns but does not price with (validity dates
 * aside: a session starting outside them is not priced, PricingError `tariff_not_valid_at`).
 * `tax_included` is OCPI 2.3's; only NO and N/A fit prices that are excl. VAT.
 */
export const ocpiTariffFields = {
  type: z
    .enum(
      ["AD_HOC_PAYMENT", "PROFILE_CHEAP", "PROFILE_FAST", "PROFILE_GREEN", "REGULAR"],
      "must be an OCPI TariffType such as REGULAR",
    )
    .optional(),
  tariff_alt_url: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(255, "must be at most 255 characters")
    .optional(),
  start_date_time: dateTime.optional(),
  end_date_time: dateTime.optional(),
  energy_mix: energyMixSchema.optional(),
  tax_included: z
    .enum(["NO", "N/A"], {
      error: (issue) =>
        issue.input === "YES"
          ? "YES is not supported: prices are excl. VAT (OCPI 2.2.1); send them excl. VAT with `vat` per component"
          : "must be NO or N/A",
    })
    .optional(),
  country_code: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 country code such as US")
    .optional(),
  party_id: z
    .string()
    .regex(/^[A-Za-z0-9]{3}$/, "must be a 3-character OCPI party ID such as CPO")
    .optional(),
  last_updated: dateTime.optional(),
};

/** Their names, in the order a response carries them. */
export const OCPI_TARIFF_FIELDS = Object.keys(
  ocpiTariffFields,
) as (keyof typeof ocpiTariffFields)[];
