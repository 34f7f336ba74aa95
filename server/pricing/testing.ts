/** Builders for pricing tests and the benchmark. */
import type { MeterSession } from "./session";
import { type TariffInput, type TariffSnapshot, validateTariff } from "./tariff-schema";

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
