import type { DbTx } from "../db";
import { powerFollowed, runPowerReadings } from "./transaction-hooks";
import { Prisma, type Transaction } from "../generated/prisma/client";
import type { ChargerContext } from "../charging/connections";
import type { ConnectorRef } from "../charging/find-connector";
import type { TenantEvent } from "../events/append-event";
import { meterSampledEvent, type MeterPlan, type OcppMeterValue } from "./record-meter";
import { transactionUpdated } from "./transaction-updated";

/** A MeterValues message that may be recorded in a batch with other stations' (`recordMeterBatch`). */
export type MeterMessage = {
  kind: "meter";
  charger: ChargerContext;
  messageId: string;
  action: string;
  transaction: { reference: string } | { inProgressOn: ConnectorRef };
  meterValues: OcppMeterValue[];
  /**
   * The station's last-seen mark due with this message (ocpp/last-seen.ts, `claim`): a message
   * the batch answers has it written in the batch's own update of its station row (the row of its
   * event counter when it has an event, else one update of `last_seen_at`), never back.
   */
  seenAt?: Date;
};

type MeterOutcome = { response: Record<string, unknown> } | { perMessage: true };

/** The reply to MeterValues in every protocol: an empty object. */
const ANSWER = {};

/** The messages `recordMeterBatch` can take: MeterValues (1.6 and 2.x), which never start a transaction. */
export function batchableMeterMessage(
  charger: ChargerContext,
  method: string,
  messageId: string,
  params: unknown,
): MeterMessage | null {
  if (method !== "MeterValues") return null;
  const p = params as {
    connectorId?: number;
    evseId?: number;
    transactionId?: number;
    meterValue: OcppMeterValue[];
  };
  let transaction: MeterMessage["transaction"];
  if (charger.protocol === "ocpp1.6")
    transaction =
      p.transactionId !== undefined
        ? { reference: String(p.transactionId) }
        : { inProgressOn: { connectorNumber: p.connectorId! } };
  else transaction = { inProgressOn: { evseNumber: p.evseId! } };
  return {
    kind: "meter",
    charger,
    messageId,
    action: method,
    transaction,
    meterValues: p.meterValue,
  };
}

type Found = {
  ord: number;
  seen_action: string | null;
  seen_response: Record<string, unknown> | null;
  bill_status: string | null;
  /** a domain follows the transaction's power readings (`powerFollowed`) */
  follows_power: boolean | null;
  id: number | null;
  tenant_id: number;
  station_id: number;
  connector_id: number | null;
  reference: string;
  id_token: string | null;
  started_at: Date | null;
  ended_at: Date | null;
  meter_start_wh: bigint | null;
  meter_stop_wh: bigint | null;
  energy_wh: number;
  stop_reason: string | null;
  last_sample_logged_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

/** a station event carrying the station's last-seen mark, if the message has one due */
function withSeen<E extends { station: { id: number; occurredAt: Date | null } }>(
  event: E,
  seenAt: Date | undefined,
): E {
  return seenAt ? { ...event, station: { ...event.station, seenAt } } : event;
}

const bigint = (v: bigint | number | string | null) => (v === null ? null : BigInt(v));

/** The transaction row as the client would read it. */
function transactionOf(f: Found): Transaction | null {
  if (f.id === null) return null;
  return {
    id: f.id,
    tenantId: f.tenant_id,
    stationId: f.station_id,
    connectorId: f.connector_id,
    reference: f.reference,
    idToken: f.id_token,
    startedAt: f.started_at,
    endedAt: f.ended_at,
    meterStartWh: bigint(f.meter_start_wh),
    meterStopWh: bigint(f.meter_stop_wh),
    energyWh: f.energy_wh,
    stopReason: f.stop_reason,
    lastSampleLoggedAt: f.last_sample_logged_at,
    createdAt: f.created_at,
    updatedAt: f.updated_at,
  };
}

/**
 * Records MeterValues messages of distinct stations, whose rows the caller locked
 * (`recordCallBatch`), with as many round trips for a batch as the ordinary path takes for one
 * message: one read of what each message needs (its earlier record, its transaction, a bill
 * being charged, whether a domain follows its power readings), then one statement writing every
 * sample, total and charger message record (and the `last_seen` of stations whose message carried
 * a due mark, `seenAt`, and has no event); the `meter.sampled` events due go to `events` (appended
 * by the caller, each counter last, a message's mark riding on its station's counter update).
 *
 * Guarantees as on the ordinary path: the read comes after the locks, so a retried message id
 * finds the first one's record and replays its answer (a record is a plain insert: under its
 * station's lock no other transaction can write one); events commit with the records. A message
 * this path does not handle exactly as `transactionUpdated` would (its transaction has a bill
 * being priced live; its id was used for another action) is answered `perMessage`, recording
 * nothing, and the caller records it alone.
 */
export async function recordMeterBatch(
  tx: DbTx,
  messages: MeterMessage[],
  events: TenantEvent[],
): Promise<MeterOutcome[]> {
  const stationIds = messages.map((m) => m.charger.stationId);
  const ref = (m: MeterMessage) => ("reference" in m.transaction ? m.transaction : null);
  const on = (m: MeterMessage) =>
    "inProgressOn" in m.transaction ? m.transaction.inProgressOn : null;
  const connectorOf = (m: MeterMessage) => {
    const o = on(m);
    return o && "connectorNumber" in o ? o.connectorNumber : null;
  };
  const evseOf = (m: MeterMessage) => {
    const o = on(m);
    return o && "evseNumber" in o ? o.evseNumber : null;
  };
  const found = await tx.$queryRaw<Found[]>`/* prepared */
    SELECT m.ord, cm.action AS seen_action, cm.response AS seen_response,
           b.status AS bill_status, ${powerFollowed(Prisma.sql`t.id`)} AS follows_power,
           t.id, t.tenant_id, t.station_id, t.connector_id, t.reference, t.id_token, t.started_at, t.ended_at, t.meter_start_wh, t.meter_stop_wh, t.energy_wh,
           t.stop_reason, t.last_sample_logged_at, t.created_at, t.updated_at
    FROM unnest(${messages.map((_, i) => i)}::int[], ${stationIds}::int[],
                ${messages.map((m) => m.messageId)}::text[],
                ${messages.map((m) => ref(m)?.reference ?? null)}::text[],
                ${messages.map(connectorOf)}::int[], ${messages.map(evseOf)}::int[])
         AS m(ord, station_id, message_id, reference, connector_number, evse_number)
    LEFT JOIN charger_messages cm ON cm.station_id = m.station_id AND cm.message_id = m.message_id
    LEFT JOIN LATERAL (
      SELECT t.* FROM transactions t
       WHERE m.reference IS NOT NULL AND t.station_id = m.station_id AND t.reference = m.reference
      UNION ALL
      SELECT t.* FROM transactions t JOIN connectors c ON c.id = t.connector_id
       WHERE m.connector_number IS NOT NULL AND t.station_id = m.station_id
         AND t.ended_at IS NULL AND c.connector_number = m.connector_number
      UNION ALL
      SELECT t.* FROM transactions t JOIN connectors c ON c.id = t.connector_id
        JOIN evses e ON e.id = c.evse_id
       WHERE m.evse_number IS NOT NULL AND t.station_id = m.station_id
         AND t.ended_at IS NULL AND e.evse_number = m.evse_number
      LIMIT 1) t ON true
    LEFT JOIN bills b ON b.transaction_id = t.id`;
  const byOrd = new Map(found.map((f) => [f.ord, f]));

  const outcomes: MeterOutcome[] = [];
  const recorded: { message: MeterMessage; plan: MeterPlan | null; transactionId: number }[] = [];
  const followed = new Set<number>();
  /** last-seen marks of answered messages with no event (those with one go with their event) */
  const seenOnly: { stationId: number; at: Date }[] = [];
  for (const [i, message] of messages.entries()) {
    const f = byOrd.get(i);
    if (f?.seen_action != null) {
      const replay = f.seen_action === message.action;
      outcomes.push(replay ? { response: f.seen_response ?? ANSWER } : { perMessage: true });
      if (replay && message.seenAt)
        seenOnly.push({ stationId: message.charger.stationId, at: message.seenAt });
      continue;
    }
    if (f?.bill_status === "charging") {
      outcomes.push({ perMessage: true }); // priced live by its bill's `onTransactionUpdated` hook
      continue;
    }
    // The one entry point for the fact, as on the ordinary path; its writes come back to the batch.
    let plan: MeterPlan | null = null;
    const transaction = f ? transactionOf(f) : null;
    await transactionUpdated(
      tx,
      message.charger,
      { transaction: message.transaction, meterValues: message.meterValues },
      { transaction, billCharging: false, defer: (p) => (plan = p) },
    );
    recorded.push({ message, plan, transactionId: transaction?.id ?? 0 });
    if (message.seenAt && !(plan as MeterPlan | null)?.events.length)
      seenOnly.push({ stationId: message.charger.stationId, at: message.seenAt });
    if (transaction && f?.follows_power) followed.add(transaction.id);
    outcomes.push({ response: ANSWER });
  }

  const samples = recorded.flatMap(({ message, plan, transactionId }) =>
    (plan?.samples ?? []).map((s) => ({ tenantId: message.charger.tenantId, transactionId, s })),
  );
  const moved = recorded.filter((r) => r.plan?.changed);
  const num = (v: bigint | number | null) => (v === null ? null : String(v));
  if (recorded.length || seenOnly.length)
    await tx.$executeRaw`/* prepared */
      WITH seen AS (
        UPDATE stations s SET last_seen_at = GREATEST(s.last_seen_at, v.seen)
          FROM unnest(${seenOnly.map((x) => x.stationId)}::int[],
                      ${seenOnly.map((x) => x.at.toISOString())}::timestamptz[]) AS v(id, seen)
         WHERE s.id = v.id),
      samples AS (
        INSERT INTO meter_samples (tenant_id, transaction_id, sampled_at, energy_wh, power_kw,
                                   current_a, voltage_v, soc_percent, context)
        SELECT * FROM unnest(${samples.map((x) => x.tenantId)}::int[],
                             ${samples.map((x) => x.transactionId)}::int[],
                             ${samples.map((x) => x.s.sampled_at)}::timestamptz[],
                             ${samples.map((x) => num(x.s.energy_wh))}::bigint[],
                             ${samples.map((x) => x.s.power_kw)}::text[],
                             ${samples.map((x) => x.s.current_a)}::text[],
                             ${samples.map((x) => x.s.voltage_v)}::text[],
                             ${samples.map((x) => x.s.soc_percent)}::text[],
                             ${samples.map((x) => x.s.context)}::text[])),
      totals AS (
        UPDATE transactions t
           SET meter_start_wh = u.meter_start_wh, energy_wh = u.energy_wh,
               last_sample_logged_at = u.logged_at, updated_at = now()
          FROM unnest(${moved.map((r) => r.transactionId)}::int[],
                      ${moved.map((r) => num(r.plan!.after.meterStartWh))}::bigint[],
                      ${moved.map((r) => r.plan!.after.energyWh)}::int[],
                      ${moved.map((r) => r.plan!.after.lastSampleLoggedAt?.toISOString() ?? null)}::timestamptz[])
               AS u(id, meter_start_wh, energy_wh, logged_at)
         WHERE t.id = u.id)
      INSERT INTO charger_messages (station_id, message_id, action, response)
      SELECT station_id, message_id, action, '{}'::jsonb
        FROM unnest(${recorded.map((r) => r.message.charger.stationId)}::int[],
                    ${recorded.map((r) => r.message.messageId)}::text[],
                    ${recorded.map((r) => r.message.action)}::text[])
             AS r(station_id, message_id, action)`;

  // each followed transaction's newest power reading, for the domains that follow the draw (site
  // limits); none followed, no statement
  const power = new Map<number, { at: string; powerKw: string }>();
  for (const { transactionId, s } of samples)
    if (followed.has(transactionId) && s.power_kw !== null && s.sampled_at !== null) {
      const seen = power.get(transactionId);
      if (!seen || seen.at < s.sampled_at)
        power.set(transactionId, { at: s.sampled_at, powerKw: s.power_kw });
    }
  await runPowerReadings(
    tx,
    [...power].map(([transactionId, r]) => ({ transactionId, powerKw: r.powerKw })),
  );

  for (const { message, plan } of recorded)
    for (const event of plan?.events ?? [])
      events.push({
        tenantId: message.charger.tenantId,
        event: withSeen(meterSampledEvent(message.charger, event), message.seenAt),
      });
  return outcomes;
}
