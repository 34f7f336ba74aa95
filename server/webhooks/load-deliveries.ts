import { queryRows, type DbTx } from "../db";
import { Prisma, type Event } from "../generated/prisma/client";

/**
 * What a delivery job needs: its delivery row, its endpoint and its event. The event's whole key
 * (`events` is keyed `(id, type, created_at)`, partitioned by type then by time) comes with the
 * job's payload where the fan-out put it there; jobs queued before it did carry the delivery's
 * id alone.
 */
export type DeliveryKey = {
  deliveryId: string;
  event?: { id: string; type: string; createdAt: Date };
};

export type LoadedDelivery = {
  id: string;
  status: string;
  endpoint: { url: string; status: string; secretEncrypted: string; apiVersion: string };
  /** null when the event is gone (retention dropped its partition) */
  event: Event | null;
};

type Row = {
  id: string;
  status: string;
  url: string;
  endpointStatus: string;
  secretEncrypted: string;
  apiVersion: string;
} & { [K in keyof Event as `event_${K & string}`]: Event[K] | null };

/** Deliveries read in one statement at most (a runner claims up to its concurrency at once). */
const MAX_BATCH = 100;

/**
 * Reads deliveries with their endpoints and events in one statement. With the event's whole key
 * the `events` lookup is pruned at planning to the partitions that can hold it (by id alone it
 * probes every partition's index, and their number grows with time); ids are random, so the
 * three lists match no event but the deliveries' own. A key-less delivery (a job queued before
 * payloads carried the key) finds its event through its row, unpruned, in a second arm that is
 * only there when one is asked for.
 */
export async function loadDeliveries(
  db: DbTx,
  keys: readonly DeliveryKey[],
): Promise<Map<string, LoadedDelivery>> {
  const rows = await queryRows<Row>(db, deliveriesStatement(keys));
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        status: r.status,
        endpoint: {
          url: r.url,
          status: r.endpointStatus,
          secretEncrypted: r.secretEncrypted,
          apiVersion: r.apiVersion,
        },
        event:
          r.event_id === null
            ? null
            : {
                id: r.event_id,
                tenantId: r.event_tenantId!,
                sequence: r.event_sequence!,
                type: r.event_type!,
                resourceId: r.event_resourceId,
                stationId: r.event_stationId,
                stationSequence: r.event_stationSequence,
                occurredAt: r.event_occurredAt,
                createdAt: r.event_createdAt!,
                data: r.event_data!,
              },
      },
    ]),
  );
}

/** The statement `loadDeliveries` runs (exported for tests to EXPLAIN). */
export function deliveriesStatement(keys: readonly DeliveryKey[]): Prisma.Sql {
  const keyed = keys.flatMap((k) => (k.event ? [k.event] : []));
  const keyless = keys.filter((k) => !k.event).map((k) => k.deliveryId);
  const arms = [
    Prisma.sql`
      SELECT * FROM events
       WHERE id = ANY(${keyed.map((e) => e.id)}::text[])
         AND type = ANY(${[...new Set(keyed.map((e) => e.type))]}::text[])
         AND created_at = ANY(${keyed.map((e) => e.createdAt.toISOString())}::timestamptz[])`,
  ];
  if (keyless.length)
    arms.push(Prisma.sql`
      SELECT * FROM events
       WHERE id IN (SELECT event_id FROM webhook_deliveries WHERE id = ANY(${keyless}::text[]))`);
  return Prisma.sql`
    WITH ev AS (${Prisma.join(arms, " UNION ALL ")})
    SELECT d.id, d.status, w.url, w.status AS "endpointStatus",
           w.secret_encrypted AS "secretEncrypted", w.api_version AS "apiVersion",
           ev.id AS event_id, ev.tenant_id AS "event_tenantId", ev.sequence AS event_sequence,
           ev.type AS event_type, ev.resource_id AS "event_resourceId",
           ev.station_id AS "event_stationId", ev.station_sequence AS "event_stationSequence",
           ev.occurred_at AS "event_occurredAt", ev.created_at AS "event_createdAt",
           ev.data AS event_data
      FROM webhook_deliveries d
      JOIN webhook_endpoints w ON w.id = d.endpoint_id
      LEFT JOIN ev ON ev.id = d.event_id
     WHERE d.id = ANY(${keys.map((k) => k.deliveryId)}::text[])`;
}

/**
 * Batches the reads of the jobs that start together: a runner starts the jobs of one claim in one
 * synchronous pass, so every read asked for before the next microtask goes out in one statement.
 * A failed statement fails each job of its batch (each is retried on its own schedule).
 */
export function deliveryLoader() {
  type Pending = {
    key: DeliveryKey;
    resolve: (d: LoadedDelivery | null) => void;
    reject: (e: unknown) => void;
  };
  const waiting = new Map<DbTx, Pending[]>();

  async function flush(db: DbTx, batch: Pending[]) {
    try {
      const found = await loadDeliveries(
        db,
        batch.map((p) => p.key),
      );
      for (const p of batch) p.resolve(found.get(p.key.deliveryId) ?? null);
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }

  return (db: DbTx, key: DeliveryKey) =>
    new Promise<LoadedDelivery | null>((resolve, reject) => {
      let pending = waiting.get(db);
      if (!pending) {
        waiting.set(db, (pending = []));
        queueMicrotask(() => {
          waiting.delete(db);
          for (let i = 0; i < pending!.length; i += MAX_BATCH)
            void flush(db, pending!.slice(i, i + MAX_BATCH));
        });
      }
      pending.push({ key, resolve, reject });
    });
}
