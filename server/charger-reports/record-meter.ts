import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import type { Transaction } from "../generated/prisma/client";
import type { ChargerContext } from "../charging/connections";
import { normalizeMeterValue, type MeterSample, type SampledValue } from "./meter-values";

const LOG_INTERVAL_MS = 10_000;

export type OcppMeterValue = { timestamp: string; sampledValue: SampledValue[] };

/** The transaction's fields a meter update reads and moves. */
export type MeterState = Pick<
  Transaction,
  "id" | "reference" | "connectorId" | "meterStartWh" | "energyWh" | "lastSampleLoggedAt"
>;

/** What one meter update writes: its samples, the totals after them, and the events to log. */
export type MeterPlan = {
  samples: (MeterSample & { sampledAt: Date })[];
  /** the transaction's fields after the update; `changed` when any differs from before */
  after: Pick<MeterState, "meterStartWh" | "energyWh" | "lastSampleLoggedAt">;
  changed: boolean;
  /** `meter.sampled` events, in sample order */
  events: { occurredAt: Date; data: Record<string, unknown> }[];
};

/**
 * The samples, totals and `meter.sampled` events of one update, decided from the transaction as it
 * stands (read under its station's lock): at most one event per transaction per 10 s (by the
 * charger's timestamps); the first sample and the Transaction.Begin / Transaction.End readings are
 * always logged. Shared by the per-message path and the batched one, so both record alike.
 */
export function planMeterValues(state: MeterState, meterValues: OcppMeterValue[]): MeterPlan {
  let { meterStartWh, energyWh, lastSampleLoggedAt } = state;
  let changed = false;
  const samples: MeterPlan["samples"] = [];
  const events: MeterPlan["events"] = [];
  for (const meterValue of meterValues) {
    const sample = normalizeMeterValue(meterValue);
    if (sample.sampled_at === null) continue; // unreadable charger timestamp
    const sampledAt = new Date(sample.sampled_at);
    samples.push({ ...sample, sampledAt });
    if (sample.energy_wh !== null) {
      // Lifetime registers outgrow 32 bits (2,147 MWh): stored as bigint, exact as numbers below 2^53.
      const start = meterStartWh === null ? sample.energy_wh : Number(meterStartWh);
      meterStartWh ??= BigInt(start);
      energyWh = Math.max(0, sample.energy_wh - start);
      changed = true;
    }
    const always = sample.context === "Transaction.Begin" || sample.context === "Transaction.End";
    const due =
      !lastSampleLoggedAt || sampledAt.getTime() - lastSampleLoggedAt.getTime() >= LOG_INTERVAL_MS;
    if (always || due) {
      lastSampleLoggedAt = sampledAt;
      changed = true;
      events.push({
        occurredAt: sampledAt,
        data: {
          transaction_id: state.id,
          transaction_reference: state.reference,
          connector_id: state.connectorId,
          ...sample,
          energy_kwh: sample.energy_kwh,
        },
      });
    }
  }
  return { samples, after: { meterStartWh, energyWh, lastSampleLoggedAt }, changed, events };
}

/** A plan's `meter.sampled` event as the station's event. */
export const meterSampledEvent = (charger: ChargerContext, event: MeterPlan["events"][number]) => ({
  type: "meter.sampled",
  resourceId: event.data.transaction_id as number,
  station: { id: charger.stationId, occurredAt: event.occurredAt },
  data: event.data,
});

/** Appends a plan's `meter.sampled` events (the tenant's event counter: last, see Locks). */
async function logMeterEvents(tx: DbTx, charger: ChargerContext, plan: MeterPlan) {
  for (const event of plan.events)
    await appendEvent({ db: tx, tenantId: charger.tenantId, ...meterSampledEvent(charger, event) });
}

/**
 * Stores a transaction's meter values, moves its totals and logs `meter.sampled`
 * (`planMeterValues`): the samples in one insert, the transaction in one update, the events last.
 */
export async function recordMeterValues(
  tx: DbTx,
  charger: ChargerContext,
  transaction: Transaction,
  meterValues: OcppMeterValue[],
) {
  const plan = planMeterValues(transaction, meterValues);
  if (plan.samples.length)
    await tx.meterSample.createMany({
      data: plan.samples.map((sample) => ({
        tenantId: charger.tenantId,
        transactionId: transaction.id,
        sampledAt: sample.sampledAt,
        energyWh: sample.energy_wh,
        powerKw: sample.power_kw,
        currentA: sample.current_a,
        voltageV: sample.voltage_v,
        socPercent: sample.soc_percent,
        context: sample.context,
      })),
    });
  const current = plan.changed
    ? await tx.transaction.update({ where: { id: transaction.id }, data: plan.after })
    : transaction;
  await logMeterEvents(tx, charger, plan);
  return current;
}
