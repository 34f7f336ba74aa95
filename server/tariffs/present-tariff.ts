import type { Tariff, TariffVersion } from "../generated/prisma/client";
import type { ApiVersion } from "../versions";
import { isComplex, OCPI_TARIFF_FIELDS, pricingSummary, type TariffSnapshot } from "../pricing";
import type { TariffResource } from "./tariff-schema";
import { tariffSnapshot } from "./tariff-snapshot";

/**
 * A complex tariff's base energy rate, for 2026-10-14 clients that cannot see elements: the
 * explicit `rate_minor_per_kwh` when given, else the first ENERGY price of an unrestricted element,
 * else of any element, in cents rounded half up; 0 when no element prices energy.
 */
export function baseRateMinorPerKwh(t: TariffSnapshot): number {
  if (t.rate_minor_per_kwh !== undefined) return t.rate_minor_per_kwh;
  const elements = t.elements ?? [];
  const energyPrice = (onlyUnrestricted: boolean) =>
    elements
      .filter(
        (e) => !onlyUnrestricted || !e.restrictions || Object.keys(e.restrictions).length === 0,
      )
      .flatMap((e) => e.price_components)
      .find((c) => c.type === "ENERGY")?.price;
  const price = energyPrice(true) ?? energyPrice(false);
  return price === undefined ? 0 : Math.round(price * 100);
}

/** The elements of a simple tariff: one ENERGY element (spec section 2). */
function elementsOf(t: TariffSnapshot) {
  return (
    t.elements ?? [
      {
        price_components: [
          { type: "ENERGY" as const, price: (t.rate_minor_per_kwh ?? 0) / 100, step_size: 1 },
        ],
      },
    ]
  );
}

/**
 * Tariffs per version (spec section 9): 2026-10-15 responses carry `elements`, `tariff_alt_text`,
 * `rules`, `time_zone`, the price bounds and the OCPI fields; 2026-10-14 responses do not, and
 * show a complex tariff as its base rate. `is_complex` and `pricing_summary` are in every version.
 */
export function presentTariff(
  row: Tariff,
  current: TariffVersion,
  version: ApiVersion,
): TariffResource {
  const t = tariffSnapshot(current);
  const base: TariffResource = {
    id: row.id,
    tenant_id: row.tenantId,
    name: row.name,
    external_reference: row.externalReference,
    version: current.version,
    currency: "USD",
    rate_minor_per_kwh: baseRateMinorPerKwh(t),
    is_complex: isComplex(t),
    pricing_summary: pricingSummary(t),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  if (version === "2026-10-14") return base;
  return {
    ...base,
    elements: elementsOf(t),
    tariff_alt_text: t.tariff_alt_text ?? [],
    rules: t.rules ?? null,
    time_zone: t.time_zone ?? null,
    min_price: t.min_price ?? null,
    max_price: t.max_price ?? null,
    // OCPI 2.2.1 Tariff fields kept as sent and returned in 2026-10-15 responses (null when absent)
    ...Object.fromEntries(OCPI_TARIFF_FIELDS.map((k) => [k, t[k] ?? null])),
  };
}
