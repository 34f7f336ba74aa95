import type { DbTx } from "../db";
import type { Transaction } from "../generated/prisma/client";
import type { MeterReading, MeterSession, ReservationInput } from "../pricing";

const register = (wh: bigint | number | null): number | null => {
  const n = wh === null ? null : Number(wh);
  return n !== null && Number.isSafeInteger(n) && n >= 0 ? n : null;
};

/**
 * The reservation the transaction used, as the pricing engine takes it: reserved from when the
 * charger accepted it (or was asked, with no answer recorded) until the transaction started,
 * priced by the tariff's reservation elements (server/pricing, `priceReservation`).
 */
function usedReservation(
  transaction: Transaction,
  reservedFrom: number | null,
): ReservationInput | null {
  if (!transaction.startedAt || reservedFrom === null) return null;
  const start = new Date(Math.round(reservedFrom));
  return {
    started_at: start > transaction.startedAt ? transaction.startedAt : start,
    ended_at: transaction.startedAt,
    expired: false,
  };
}

/**
 * A transaction as the pricing engine's meter series: the start reading, every energy register
 * sample the charger reported (with its current, for current restrictions), the stop reading;
 * from the charger's start to its stop (or, while it runs, its last reading). Registers are
 * absolute; the engine prices their differences. The samples come back as three arrays in one
 * row: live pricing reads a day of 1-minute samples on every meter update, and one row per
 * sample cost several times more. A reservation the transaction used comes first (`usedReservation`).
 */
export async function transactionSession(
  tx: DbTx,
  transaction: Transaction,
): Promise<MeterSession> {
  const [samples] = await tx.$queryRaw<
    { at: number[]; wh: number[]; current: (string | null)[]; reserved_from: number | null }[]
  >`
    SELECT
      (SELECT (extract(epoch FROM coalesce(r.accepted_at, r.created_at)) * 1000)::float8
         FROM reservations r
        WHERE r.transaction_id = ${transaction.id} AND r.status = 'used') AS reserved_from,
      coalesce(array_agg((extract(epoch FROM sampled_at) * 1000)::float8 ORDER BY sampled_at, id), '{}') AS at,
      coalesce(array_agg(energy_wh::float8 ORDER BY sampled_at, id), '{}') AS wh,
      coalesce(array_agg(current_a ORDER BY sampled_at, id), '{}') AS current
    FROM meter_samples
    WHERE transaction_id = ${transaction.id} AND energy_wh IS NOT NULL`;
  const readings: MeterReading[] = [];
  const start = register(transaction.meterStartWh);
  if (transaction.startedAt && start !== null)
    readings.push({ at: transaction.startedAt, energy_wh: start });
  samples?.at.forEach((at, i) => {
    const wh = register(samples.wh[i] ?? null);
    if (wh === null) return;
    const current = Number(samples.current[i] ?? NaN);
    readings.push({
      at: Math.round(at),
      energy_wh: wh,
      current_a: Number.isFinite(current) ? current : null,
    });
  });
  const stop = register(transaction.meterStopWh);
  if (transaction.endedAt && stop !== null)
    readings.push({ at: transaction.endedAt, energy_wh: stop });
  return {
    method: "meter_values",
    started_at: transaction.startedAt,
    stopped_at: transaction.endedAt,
    readings,
    reservation: usedReservation(transaction, samples?.reserved_from ?? null),
  };
}
