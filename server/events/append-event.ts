import type { DbTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
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
 * Lock order, for every transaction (ARCHITECTURE.md, Locks); taking them in one order is what
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
  station: { id: number; occurredAt: Date | null };
};

/**
 * Appends several station events of one tenant, as `appendEvent` would one by one and in the same
 * order, in three statements whatever their number: the stations' `event_sequence` moved (their
 * rows already locked by the caller), then the tenant's counter moved once by the count (the lock
 * taken last and held to commit, as in `appendEvent`), then every event inserted. Webhook
 * deliveries are fanned out per event only when the tenant has an active endpoint for a type
 * (asked before the counter is taken).
 */
export async function appendStationEvents(db: DbTx, tenantId: number, events: StationEvent[]) {
  if (events.length === 0) return [];
  const types = [...new Set(events.map((e) => e.type))];
  const subscribed = await db.webhookEndpoint.count({
    where: { tenantId, status: "active", events: { hasSome: types } },
  });
  const perStation = new Map<number, number>();
  for (const e of events) perStation.set(e.station.id, (perStation.get(e.station.id) ?? 0) + 1);
  const moved = await db.$queryRaw<{ id: number; event_sequence: number }[]>`
    UPDATE stations s SET event_sequence = s.event_sequence + m.n
      FROM unnest(${[...perStation.keys()]}::int[], ${[...perStation.values()]}::int[]) AS m(id, n)
     WHERE s.id = m.id
    RETURNING s.id, s.event_sequence`;
  // Each station's events take its sequences in order, ending at the new value.
  const next = new Map(moved.map((r) => [r.id, r.event_sequence - perStation.get(r.id)! + 1]));
  const [counter] = await db.$queryRaw<{ last_sequence: number }[]>`
    INSERT INTO tenant_event_counters (tenant_id, last_sequence) VALUES (${tenantId}, ${events.length})
    ON CONFLICT (tenant_id) DO UPDATE
      SET last_sequence = tenant_event_counters.last_sequence + ${events.length}
    RETURNING last_sequence`;
  const first = counter!.last_sequence - events.length + 1;
  const created = await db.event.createManyAndReturn({
    data: events.map((e, i) => {
      const stationSequence = next.get(e.station.id)!;
      next.set(e.station.id, stationSequence + 1);
      return {
        id: newId("evt"),
        tenantId,
        sequence: first + i,
        type: e.type,
        resourceId: e.resourceId === null ? null : String(e.resourceId),
        stationId: e.station.id,
        stationSequence,
        occurredAt: e.station.occurredAt,
        data: e.data as Prisma.InputJsonObject,
      };
    }),
  });
  created.sort((a, b) => a.sequence - b.sequence);
  if (subscribed) for (const event of created) await enqueueDeliveries(db, event);
  return created;
}
