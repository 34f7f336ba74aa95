import type { z } from "zod";
import { db as defaultDb, type DbTx } from "../db";
import { DomainError } from "../errors";
import {
  isPricingError,
  pricingSummary,
  priceSession,
  priceSummary,
  quoteSession,
  type SessionInput,
  type TariffSnapshot,
} from "../pricing";
import type { ChargingPeriod } from "../pricing";
import { loadTariff, parseTariffBody } from "./manage-tariffs";
import type { priceResultSchema, quoteBody, simulateBody } from "./tariff-schema";
import { tariffSnapshot } from "./tariff-snapshot";

type PricedAnswer = z.infer<typeof priceResultSchema>;

/**
 * Engine errors in the API's terms: no start time for a time-dependent tariff is 409
 * `transaction_start_unknown`; a session starting outside the tariff's validity window is 409
 * `tariff_not_valid_at`; inconsistent session data is 422 `validation_failed`.
 */
function priced<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (isPricingError(error)) {
      if (error.code === "transaction_start_unknown" || error.code === "tariff_not_valid_at")
        throw new DomainError(error.code, error.message, error.details ?? {});
      throw new DomainError("validation_failed", error.message, {
        fields: [{ field: "session", message: error.message }],
        ...(error.details ?? {}),
      });
    }
    throw error;
  }
}

export async function quoteTariff({
  tenantId,
  tariffId,
  input,
  db = defaultDb(),
}: {
  tenantId: number;
  tariffId: number;
  input: z.infer<typeof quoteBody>;
  db?: DbTx;
}): Promise<PricedAnswer> {
  const { current } = await loadTariff(db, tenantId, tariffId);
  const tariff = tariffSnapshot(current);
  const result = priced(() =>
    quoteSession(tariff, {
      energy_wh: input.energy_wh,
      duration_seconds: input.duration_seconds,
      start_at: input.start_at ?? new Date(),
      ...(input.reservation_seconds === undefined
        ? {}
        : { reservation_seconds: input.reservation_seconds }),
    }),
  );
  return {
    tariff_id: tariffId,
    tariff_version: current.version,
    pricing_summary: pricingSummary(tariff),
    price_summary: priceSummary(result),
    ...result,
  };
}

export async function simulateTariff({
  tenantId,
  input,
  db = defaultDb(),
}: {
  tenantId: number;
  input: z.infer<typeof simulateBody>;
  db?: DbTx;
}): Promise<PricedAnswer> {
  let tariff: TariffSnapshot;
  let version: number | null = null;
  if (input.tariff_id !== undefined) {
    const { current } = await loadTariff(db, tenantId, input.tariff_id);
    tariff = tariffSnapshot(current);
    version = current.version;
  } else {
    tariff = parseTariffBody(input.tariff ?? {}).snapshot;
  }
  const s = input.session;
  const session: SessionInput =
    "meter_values" in s
      ? {
          method: "meter_values",
          started_at: s.started_at === undefined ? (s.meter_values[0]?.at ?? null) : s.started_at,
          ...(s.stopped_at ? { stopped_at: s.stopped_at } : {}),
          readings: s.meter_values,
          reservation: s.reservation ?? null,
        }
      : {
          method: "charging_periods",
          start_date_time: s.start_date_time,
          end_date_time: s.end_date_time,
          charging_periods: s.charging_periods as ChargingPeriod[],
        };
  const result = priced(() => priceSession(tariff, session));
  return {
    tariff_id: input.tariff_id ?? null,
    tariff_version: version,
    pricing_summary: pricingSummary(tariff),
    price_summary: priceSummary(result),
    ...result,
  };
}
