import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import type { Transaction } from "../generated/prisma/client";
import type { ChargerContext } from "./connections";
import { kwhFromWh, normalizeMeterValue, type SampledValue } from "./meter-values";

const LOG_INTERVAL_MS = 10_000;

export type OcppMeterValue = { timestamp: string; sampledValue: SampledValue[] };

/**
 * Stores a transaction's meter values and logs `meter.sampled`: at most one per transaction per
 * 10 s (by the charger's timestamps); the first sample and the Transaction.Begin / Transaction.End
 * readings are always logged.
 */
export async function recordMeterValues(
  tx: DbTx,
  charger: ChargerContext,
  transaction: Transaction,
  meterValues: OcppMeterValue[],
) {
  let current = transaction;
  for (const meterValue of meterValues) {
    const sample = normalizeMeterValue(meterValue);
    if (sample.sampled_at === null) continue; // unreadable charger timestamp
    const sampledAt = new Date(sample.sampled_at);
    await tx.meterSample.create({
      data: {
        tenantId: charger.tenantId,
        transactionId: current.id,
        sampledAt,
        energyWh: sample.energy_wh,
        powerKw: sample.power_kw,
        currentA: sample.current_a,
        voltageV: sample.voltage_v,
        socPercent: sample.soc_percent,
        context: sample.context,
      },
    });
    const always = sample.context === "Transaction.Begin" || sample.context === "Transaction.End";
    const due =
      !current.lastSampleLoggedAt ||
      sampledAt.getTime() - current.lastSampleLoggedAt.getTime() >= LOG_INTERVAL_MS;
    const update: Partial<Transaction> = {};
    if (sample.energy_wh !== null) {
      // Lifetime registers outgrow 32 bits (2,147 MWh): stored as bigint, exact as numbers below 2^53.
      const start = current.meterStartWh === null ? sample.energy_wh : Number(current.meterStartWh);
      if (current.meterStartWh === null) update.meterStartWh = BigInt(start);
      update.energyWh = Math.max(0, sample.energy_wh - start);
    }
    if (always || due) {
      update.lastSampleLoggedAt = sampledAt;
      await appendEvent({
        db: tx,
        tenantId: charger.tenantId,
        type: "meter.sampled",
        resourceId: current.id,
        station: { id: charger.stationId, occurredAt: sampledAt },
        data: {
          transaction_id: current.id,
          transaction_reference: current.reference,
          connector_id: current.connectorId,
          ...sample,
          energy_kwh: sample.energy_kwh,
        },
      });
    }
    if (Object.keys(update).length)
      current = await tx.transaction.update({ where: { id: current.id }, data: update });
  }
  return current;
}

export { kwhFromWh };
