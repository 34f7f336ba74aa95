/** Builders for pricing tests and the benchmark. */
import type { MeterSession } from "../server/pricing/session";
import {
  type TariffInput,
  type TariffSnapshot,
  validateTariff,
} from "../server/pricing/tariff-schema";

/** A validated tariff; throws with the issues when the input is invalid. */
export function aTariff(input: TariffInput): TariffSnapshot {
  const result = validateTariff(input);
  if (!result.ok) throw new Error(`invalid test tariff: ${JSON.stringify(result.issues)}`);
  return result.tariff;
}

export const MINUTE = 60_000;

/**
 * A meter session from readings given as [minutes after start, register Wh, current A?].
 * `stopMinutes` defaults to the last reading; `startKnown: false` gives started_at null.
 */
export function aMeterSession(
  startIso: string,
  readings: readonly (readonly [number, number, number?])[],
  options: { stopMinutes?: number; startKnown?: boolean } = {},
): MeterSession {
  const start = Date.parse(startIso);
  const at = (minutes: number) => new Date(start + Math.round(minutes * MINUTE)).toISOString();
  return {
    method: "meter_values",
    started_at: options.startKnown === false ? null : startIso,
    stopped_at: options.stopMinutes === undefined ? null : at(options.stopMinutes),
    readings: readings.map(([minutes, wh, current]) => ({
      at: at(minutes),
      energy_wh: wh,
      current_a: current ?? null,
    })),
  };
}

/** OCPI 2.2.1 example 17 (reservation with expire fee) with every Tariff field, in US dollars. */
export const OCPI_TARIFF = {
  country_code: "US",
  party_id: "CPO",
  currency: "USD",
  type: "REGULAR",
  tariff_alt_text: [{ language: "en", text: "$0.25/kWh, $0.50 start; reservations $2/h" }],
  tariff_alt_url: "https://example.com/tariffs/20",
  min_price: { excl_vat: 0.5, incl_vat: 0.6 },
  max_price: { excl_vat: 50, incl_vat: 60 },
  elements: [
    {
      price_components: [{ type: "FLAT", price: 4, vat: 20, step_size: 1 }],
      restrictions: { reservation: "RESERVATION_EXPIRES" },
    },
    {
      price_components: [{ type: "TIME", price: 2, vat: 20, step_size: 600 }],
      restrictions: { reservation: "RESERVATION" },
    },
    {
      price_components: [
        { type: "FLAT", price: 0.5, vat: 20, step_size: 0 },
        { type: "ENERGY", price: 0.25, vat: 10, step_size: 1 },
      ],
    },
  ],
  start_date_time: "2026-01-01T00:00:00Z",
  end_date_time: "2028-01-01T00:00:00",
  energy_mix: {
    is_green_energy: false,
    energy_sources: [
      { source: "GENERAL_GREEN", percentage: 35.9 },
      { source: "GAS", percentage: 6.3 },
      { source: "COAL", percentage: 33.2 },
      { source: "GENERAL_FOSSIL", percentage: 2.9 },
      { source: "NUCLEAR", percentage: 21.7 },
    ],
    environ_impact: [
      { category: "NUCLEAR_WASTE", amount: 0.0006 },
      { category: "CARBON_DIOXIDE", amount: 372 },
    ],
    supplier_name: "E.ON Energy Deutschland",
    energy_product_name: "E.ON DirektStrom eco",
  },
  tax_included: "NO",
  last_updated: "2026-10-03T17:00:11Z",
};
