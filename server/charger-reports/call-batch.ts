import type { DbTx } from "../db";
import { appendEventsByTenant, type TenantEvent } from "../events/append-event";
import type { ChargerContext } from "../charging/connections";
import { recordMeterBatch, type MeterMessage } from "./meter-batch";
import { Prisma } from "../generated/prisma/client";
import { armProfileResends, hasProfilesToResend } from "../charging-profiles/resend-after-boot";
import { planBoot, type BootReport } from "./station-booted";
import { isWholeStation, planStatus, type StatusReport } from "./status-reported";

/** What a protocol's handler makes of a BootNotification or StatusNotification for a batch. */
export type StationCall =
  | { kind: "boot"; report: BootReport; at: Date; response: Record<string, unknown> }
  | { kind: "status"; report: StatusReport; response: Record<string, unknown> };

export type StationMessage = StationCall & {
  charger: ChargerContext;
  messageId: string;
  action: string;
};

/**
 * A charger call a batch can record (`recordCallBatch`), with the generation of the connection it
 * came on (`ConnectionChange`).
 */
export type CallMessage = (MeterMessage | StationMessage) & { generation: number };

/** The answer to give, or `perMessage`: record it alone on the ordinary path instead. */
export type CallOutcome = { response: Record<string, unknown> } | { perMessage: true };

/**
 * Records charger calls of distinct stations (MeterValues, BootNotification, StatusNotification)
 * in one transaction, with a few statements for the lot: the stations locked in id order (see
 * Locks), each kind's reads and writes set-based (`recordMeterBatch`, `recordStationMessages`),
 * then their events, tenant by tenant (each counter taken last, once). Each message is recorded
 * exactly as its handler would record it alone (the same plans), or answered `perMessage`,
 * recording nothing, for the caller to record it alone. So is a message whose connection is no
 * longer its station's (`lockConnection` then refuses it on that path).
 */
export async function recordCallBatch(tx: DbTx, messages: CallMessage[]): Promise<CallOutcome[]> {
  const events: TenantEvent[] = [];
  const outcomes = await writeCallBatch(tx, messages, events);
  await appendEventsByTenant(tx, events);
  return outcomes;
}

/**
 * `recordCallBatch` without its last step: the events go to `events`, for the caller to append
 * (after events of its own that come first, `recordConnectionChanges`). `current`: the caller
 * locked the messages' stations already and knows each one's current generation (online), so
 * the lock is not taken again.
 */
export async function writeCallBatch(
  tx: DbTx,
  messages: CallMessage[],
  events: TenantEvent[],
  current?: ReadonlyMap<number, number>,
): Promise<CallOutcome[]> {
  current ??= await lockStations(
    tx,
    messages.map((m) => m.charger.stationId),
  );
  const outcomes: CallOutcome[] = new Array<CallOutcome>(messages.length);
  const meters: { i: number; m: MeterMessage }[] = [];
  const others: { i: number; m: StationMessage }[] = [];
  messages.forEach((m, i) => {
    if (current.get(m.charger.stationId) !== m.generation) outcomes[i] = { perMessage: true };
    else if (m.kind === "meter") meters.push({ i, m });
    else others.push({ i, m });
  });
  if (meters.length) {
    const done = await recordMeterBatch(
      tx,
      meters.map((x) => x.m),
      events,
    );
    meters.forEach((x, j) => (outcomes[x.i] = done[j]!));
  }
  if (others.length) {
    const done = await recordStationMessages(
      tx,
      others.map((x) => x.m),
      events,
    );
    others.forEach((x, j) => (outcomes[x.i] = done[j]!));
  }
  return outcomes;
}

/** Locks the stations in id order; the current generation of each one that is online. */
async function lockStations(tx: DbTx, stationIds: number[]) {
  const locked = await tx.$queryRaw<
    { id: number; generation: number; online: boolean }[]
  >`/* prepared */
    SELECT id, connection_generation AS generation, gateway_id IS NOT NULL AS online
      FROM stations WHERE id = ANY(${stationIds}::int[]) ORDER BY id FOR NO KEY UPDATE`;
  return new Map(locked.filter((s) => s.online).map((s) => [s.id, s.generation]));
}

type Found = {
  ord: number;
  seen_action: string | null;
  seen_response: Record<string, unknown> | null;
  connector_id: number | null;
  connector_status: string | null;
  evse_number: number | null;
  active: boolean;
  fault_open: boolean;
  fault_error_code: string | null;
  /** a boot's station has a profile to re-send (`armProfileResends`) */
  resend: boolean;
};

/**
 * BootNotification and StatusNotification of distinct stations, whose rows the caller locked: one
 * read of what each needs (its earlier record, its connector, an unended transaction there, the
 * fault open there, a booted station's profiles to re-send), then one statement writing every
 * station, connector and charger message record; the events go to `events`. A retried message id replays its recorded answer; a message
 * whose id was used for another action, or a status report that opens or clears a fault, is
 * answered `perMessage`.
 */
async function recordStationMessages(tx: DbTx, messages: StationMessage[], events: TenantEvent[]) {
  const status = (m: StationMessage) => (m.kind === "status" ? m.report : null);
  const found = await tx.$queryRaw<Found[]>`/* prepared */
    SELECT m.ord, cm.action AS seen_action, cm.response AS seen_response,
           c.id AS connector_id, c.status AS connector_status, c.evse_number,
           EXISTS (SELECT 1 FROM transactions t
                    WHERE t.connector_id = c.id AND t.ended_at IS NULL) AS active,
           f.id IS NOT NULL AS fault_open, f.error_code AS fault_error_code,
           NOT m.is_status AND ${hasProfilesToResend(Prisma.sql`m.station_id`)} AS resend
    FROM unnest(${messages.map((_, i) => i)}::int[],
                ${messages.map((m) => m.charger.stationId)}::int[],
                ${messages.map((m) => m.messageId)}::text[],
                ${messages.map((m) => m.kind === "status")}::boolean[],
                ${messages.map((m) => status(m)?.connectorNumber ?? null)}::int[],
                ${messages.map((m) => status(m)?.evseNumber ?? null)}::int[],
                ${messages.map((m) => status(m)?.evseConnectorNumber ?? null)}::int[])
         AS m(ord, station_id, message_id, is_status, connector_number, evse_number,
              evse_connector_number)
    LEFT JOIN charger_messages cm ON cm.station_id = m.station_id AND cm.message_id = m.message_id
    LEFT JOIN LATERAL (
      SELECT c.id, c.status, e.evse_number FROM connectors c JOIN evses e ON e.id = c.evse_id
       WHERE m.is_status AND c.station_id = m.station_id
         AND m.connector_number IS DISTINCT FROM 0 AND m.evse_number IS DISTINCT FROM 0
         AND CASE WHEN m.connector_number IS NOT NULL THEN c.connector_number = m.connector_number
                  ELSE e.evse_number = m.evse_number
                       AND c.evse_connector_number = m.evse_connector_number END
       LIMIT 1) c ON true
    LEFT JOIN LATERAL (
      SELECT f.id, f.error_code FROM faults f
       WHERE m.is_status AND f.station_id = m.station_id AND f.cleared_at IS NULL
         AND f.connector_id IS NOT DISTINCT FROM c.id
       ORDER BY f.id DESC LIMIT 1) f ON true`;
  const byOrd = new Map(found.map((f) => [f.ord, f]));

  const outcomes: CallOutcome[] = [];
  const records: StationMessage[] = [];
  const boots: { id: number; plan: ReturnType<typeof planBoot>; resend: boolean }[] = [];
  const connectors: NonNullable<NonNullable<ReturnType<typeof planStatus>>["update"]>[] = [];
  for (const [i, m] of messages.entries()) {
    const f = byOrd.get(i)!;
    if (f.seen_action !== null) {
      outcomes.push(
        f.seen_action === m.action ? { response: f.seen_response ?? {} } : { perMessage: true },
      );
      continue;
    }
    const tenantId = m.charger.tenantId;
    if (m.kind === "boot") {
      const plan = planBoot(m.charger, m.report, m.at);
      boots.push({ id: m.charger.stationId, plan, resend: f.resend });
      events.push({ tenantId, event: plan.event });
    } else {
      const connector =
        f.connector_id === null || isWholeStation(m.report)
          ? null
          : { id: f.connector_id, status: f.connector_status, evseNumber: f.evse_number! };
      const open = f.fault_open ? { errorCode: f.fault_error_code } : null;
      const plan = planStatus(m.charger, m.report, { connector, active: f.active, open });
      // Fault moves create and update fault rows: rare, recorded alone.
      if (plan && (plan.fault.clear || plan.fault.open)) {
        outcomes.push({ perMessage: true });
        continue;
      }
      if (plan?.update) connectors.push(plan.update);
      if (plan?.changed) events.push({ tenantId, event: plan.changed });
    }
    records.push(m);
    outcomes.push({ response: m.response });
  }
  if (records.length === 0) return outcomes;
  // Only stations with a profile to re-send: most boots arm nothing, and skip the statement.
  await armProfileResends(
    tx,
    boots.filter((b) => b.resend).map((b) => b.id),
  );

  const at = (d: Date) => d.toISOString();
  await tx.$executeRaw`/* prepared */
    WITH booted AS (
      UPDATE stations s
         SET boot_vendor = b.vendor, boot_model = b.model, firmware_version = b.firmware,
             booted_at = b.at, last_seen_at = b.at, serial = COALESCE(b.serial, s.serial),
             updated_at = now()
        FROM unnest(${boots.map((b) => b.id)}::int[],
                    ${boots.map((b) => b.plan.station.bootVendor)}::text[],
                    ${boots.map((b) => b.plan.station.bootModel)}::text[],
                    ${boots.map((b) => b.plan.station.firmwareVersion)}::text[],
                    ${boots.map((b) => b.plan.station.serial ?? null)}::text[],
                    ${boots.map((b) => at(b.plan.station.bootedAt))}::timestamptz[])
             AS b(id, vendor, model, firmware, serial, at)
       WHERE s.id = b.id),
    statuses AS (
      UPDATE connectors c
         SET status = u.status, ocpp_status = u.ocpp_status, error_code = u.error_code,
             status_updated_at = u.at
        FROM unnest(${connectors.map((c) => c.id)}::int[],
                    ${connectors.map((c) => c.data.status)}::text[],
                    ${connectors.map((c) => c.data.ocppStatus)}::text[],
                    ${connectors.map((c) => c.data.errorCode)}::text[],
                    ${connectors.map((c) => at(c.data.statusUpdatedAt))}::timestamptz[])
             AS u(id, status, ocpp_status, error_code, at)
       WHERE c.id = u.id)
    INSERT INTO charger_messages (station_id, message_id, action, response)
    SELECT station_id, message_id, action, response::jsonb
      FROM unnest(${records.map((r) => r.charger.stationId)}::int[],
                  ${records.map((r) => r.messageId)}::text[],
                  ${records.map((r) => r.action)}::text[],
                  ${records.map((r) => JSON.stringify(r.response))}::text[])
           AS r(station_id, message_id, action, response)`;
  return outcomes;
}
