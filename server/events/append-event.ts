import type { DbTx } from "../db";
import type { Event, Prisma } from "../generated/prisma/client";
import { newId } from "../lib/ids";
import { enqueueDeliveries } from "../webhooks/enqueue-deliveries";

export type AppendEventOptions = {
  db: DbTx;
  tenantId: number;
  type: string;
  resourceId: string | number | null;
  data: Record<string, unknown>;
  /** charger events: the station, and the charger's own timestamp (null for connectivity) */
  station?: { id: number; occurredAt: Date | null };
  /** deliver to this webhook endpoint only, whatever it subscribes to (webhook.test) */
  deliverOnlyTo?: string;
};

/**
 * Appends an event in the caller's transaction (the outbox rule: an event commits with the change
 * it reports, or not at all).
 *
 * `sequence` comes from a per-tenant counter row updated here: the row lock is held until the
 * transaction ends, so events of one tenant commit in sequence order and a reader paging by
 * `sequence` never skips one that commits later (the next number is handed out only after the
 * previous holder committed or rolled back, wherever in its transaction it took the lock).
 * `station_sequence` likewise comes from the station row (+1 per station event).
 *
 * Lock order, for every transaction (server/db/README.md); taking them in one order is what
 * keeps two transactions from each holding what the other waits for:
 *   1. the /v1 request's idempotency record (an idempotent route's first statement);
 *   2. the station row (`lockStation`, or the UPDATE that writes it), before any row of that
 *      station (connectors, EVSEs, transactions, faults, operations, charger messages, csms bills);
 *   3. a bill row, then its payment or its external session (`lockBill`, `lockSession`: a csms
 *      bill after its station);
 *   4. other rows of the change (operation, API key, webhook endpoint, tariff…) and advisory locks;
 *   5. the tenant's event counter, always last: this function takes it after the station row.
 *      After it a transaction writes only rows it creates or rows guarded by a lock it holds (its
 *      station's rows); so it appends events of at most one station, or locks them all first.
 */
export async function appendEvent({
  db,
  tenantId,
  type,
  resourceId,
  data,
  station,
  deliverOnlyTo,
}: AppendEventOptions) {
  let stationSequence: number | null = null;
  if (station) {
    const [row] = await db.$queryRaw<{ event_sequence: number }[]>`
      UPDATE stations SET event_sequence = event_sequence + 1 WHERE id = ${station.id}
      RETURNING event_sequence`;
    stationSequence = row?.event_sequence ?? null;
  }
  const [counter] = await db.$queryRaw<{ last_sequence: number }[]>`
    INSERT INTO tenant_event_counters (tenant_id, last_sequence) VALUES (${tenantId}, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET last_sequence = tenant_event_counters.last_sequence + 1
    RETURNING last_sequence`;
  const event = await db.event.create({
    data: {
      id: newId("evt"),
      tenantId,
      sequence: counter!.last_sequence,
      type,
      resourceId: resourceId === null ? null : String(resourceId),
      stationId: station?.id ?? null,
      stationSequence,
      occurredAt: station?.occurredAt ?? null,
      data: data as Prisma.InputJsonObject,
    },
  });
  await enqueueDeliveries(db, event, deliverOnlyTo);
  return event;
}

export type StationEvent = {
  type: string;
  resourceId: string | number | null;
  data: Record<string, unknown>;
  /**
   * `seenAt` (`appendStationEvents` only): the station's `last_seen_at` moves up to it in the same
   * row update as its event counter (a batch of MeterValues writes its stations' last-seen marks
   * so, instead of the gateway's flush writing each row again, ocpp/last-seen.ts).
   */
  station: { id: number; occurredAt: Date | null; seenAt?: Date };
};

/**
 * Appends several station events of one tenant, as `appendEvent` would one by one and in the same
 * order, in one statement whatever their number: the stations' `event_sequence` moved (their rows
 * already locked by the caller, so the one lock the statement takes is the tenant's counter, held
 * to commit as in `appendEvent`), each station's events numbered on from its old value in order,
 * the counter moved once by the count and the events numbered on from it, every event inserted.
 * A station's `seenAt`, if any of its events carries one, moves its `last_seen_at` up in the same
 * row update (never back). Webhook deliveries are fanned out per event only when the tenant has
 * an active endpoint for a type (the statement says so).
 */
export async function appendStationEvents(db: DbTx, tenantId: number, events: StationEvent[]) {
  if (events.length === 0) return [];
  const types = [...new Set(events.map((e) => e.type))];
  const perStation = new Map<number, number>();
  const seen = new Map<number, Date>();
  for (const e of events) {
    perStation.set(e.station.id, (perStation.get(e.station.id) ?? 0) + 1);
    const at = e.station.seenAt;
    const was = seen.get(e.station.id);
    if (at && (!was || at > was)) seen.set(e.station.id, at);
  }
  const ids = events.map(() => newId("evt"));
  const rows = await db.$queryRaw<
    {
      ord: bigint;
      sequence: number;
      station_sequence: number;
      created_at: Date;
      subscribed: boolean;
    }[]
  >`/* prepared */
    WITH moved AS (
      UPDATE stations s SET event_sequence = s.event_sequence + m.n,
                            last_seen_at = GREATEST(s.last_seen_at, m.seen)
        FROM unnest(${[...perStation.keys()]}::int[], ${[...perStation.values()]}::int[],
                    ${[...perStation.keys()].map((id) => seen.get(id)?.toISOString() ?? null)}::timestamptz[])
             AS m(id, n, seen)
       WHERE s.id = m.id
      RETURNING s.id, s.event_sequence - m.n AS before),
    counter AS (
      INSERT INTO tenant_event_counters (tenant_id, last_sequence)
      VALUES (${tenantId}, ${events.length})
      ON CONFLICT (tenant_id) DO UPDATE
        SET last_sequence = tenant_event_counters.last_sequence + ${events.length}
      RETURNING last_sequence - ${events.length} AS before),
    e AS (
      SELECT * FROM unnest(${ids}::text[], ${events.map((e) => e.type)}::text[],
                           ${events.map((e) => (e.resourceId === null ? null : String(e.resourceId)))}::text[],
                           ${events.map((e) => e.station.id)}::int[],
                           ${events.map((e) => e.station.occurredAt?.toISOString() ?? null)}::timestamptz[],
                           ${events.map((e) => JSON.stringify(e.data))}::text[])
        WITH ORDINALITY AS e(id, type, resource_id, station_id, occurred_at, data, ord)),
    inserted AS (
      INSERT INTO events (id, tenant_id, sequence, type, resource_id, station_id, station_sequence,
                          occurred_at, data)
      SELECT e.id, ${tenantId}, counter.before + e.ord, e.type, e.resource_id, e.station_id,
             moved.before + row_number() OVER (PARTITION BY e.station_id ORDER BY e.ord),
             e.occurred_at, e.data::jsonb
        FROM e CROSS JOIN counter JOIN moved ON moved.id = e.station_id
      RETURNING id, sequence, station_sequence, created_at)
    SELECT e.ord, i.sequence, i.station_sequence, i.created_at,
           EXISTS (SELECT 1 FROM webhook_endpoints w
                    WHERE w.tenant_id = ${tenantId} AND w.status = 'active'
                      AND w.events && ${types}::text[]) AS subscribed
      FROM inserted i JOIN e ON e.id = i.id
     ORDER BY e.ord`;
  if (rows.length !== events.length)
    throw new Error("an event's station no longer exists; its events cannot be appended");
  const created: Event[] = rows.map((row, i) => {
    const e = events[i]!;
    return {
      id: ids[i]!,
      tenantId,
      sequence: row.sequence,
      type: e.type,
      resourceId: e.resourceId === null ? null : String(e.resourceId),
      stationId: e.station.id,
      stationSequence: row.station_sequence,
      occurredAt: e.station.occurredAt,
      createdAt: row.created_at,
      data: e.data as Prisma.JsonObject,
    };
  });
  if (rows[0]?.subscribed) for (const event of created) await enqueueDeliveries(db, event);
  return created;
}

/** An event to append for a tenant (`appendEventsByTenant`). */
export type TenantEvent = { tenantId: number; event: StationEvent };

/**
 * Appends station events of several tenants (`appendStationEvents`), tenant by tenant in id order,
 * each tenant's in the order given: every counter is taken once, and last (see Locks).
 */
export async function appendEventsByTenant(db: DbTx, events: readonly TenantEvent[]) {
  const byTenant = new Map<number, StationEvent[]>();
  for (const { tenantId, event } of events) {
    if (!byTenant.has(tenantId)) byTenant.set(tenantId, []);
    byTenant.get(tenantId)!.push(event);
  }
  for (const tenantId of [...byTenant.keys()].sort((a, b) => a - b))
    await appendStationEvents(db, tenantId, byTenant.get(tenantId)!);
}
