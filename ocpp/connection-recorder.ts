import type { Db } from "../server/db";
import {
  CONNECTION_BATCH_SIZE,
  recordConnectionChanges,
  type ConnectionChange,
} from "../server/charging/connections";

type Station = { id: number; tenantId: number };
type Waiting = {
  change: ConnectionChange;
  settle: (outcome: { generation: number | null } | { error: Error }) => void;
};

/** A recorded connect: when the gateway accepted it, and its generation (`ConnectionChange`). */
export type RecordedConnection = { at: Date; generation: number };

/**
 * Records this gateway's connects and disconnects in batches: changes wait here in arrival order,
 * where a wait has no deadline, and go out up to `batchSize` of one tenant per transaction
 * (`recordConnectionChanges`), at most `atOnce` transactions at a time. A burst (every socket of
 * a network blip closing, a reconnect storm) used to queue one transaction per station in the
 * database pool, where waits time out after 2 s: the records were lost and their stations shown
 * online with no socket. Batches hold one tenant each, so a transaction takes one event counter.
 *
 * Each station's changes are written in the order they arrived: a station whose change is being
 * written has its next ones wait for that batch, and a batch never takes a station's change past
 * an earlier one still waiting (two batches in flight once wrote a station's older connect after
 * its newer one, and that older connection's close then took the station offline).
 */
export function createConnectionRecorder({
  db,
  gatewayId,
  batchSize = CONNECTION_BATCH_SIZE,
  atOnce = 2,
}: {
  db: Db;
  gatewayId: string;
  batchSize?: number;
  atOnce?: number;
}) {
  let waiting: Waiting[] = [];
  /** stations with a change being written */
  const writing = new Set<number>();
  let running = 0;

  const failed = (error: unknown) =>
    error instanceof Error ? error : new Error(`recording failed: ${String(error)}`);

  async function write(batch: Waiting[]) {
    try {
      const outcomes = await recordConnectionChanges(
        db,
        gatewayId,
        batch.map((w) => w.change),
      );
      batch.forEach((w, i) => w.settle({ generation: outcomes[i] ?? null }));
    } catch {
      // One change the lot cannot apply (its station deleted meanwhile): each on its own, in order.
      for (const w of batch)
        await recordConnectionChanges(db, gatewayId, [w.change]).then(
          ([generation]) => w.settle({ generation: generation ?? null }),
          (error: unknown) => w.settle({ error: failed(error) }),
        );
    }
  }

  /** The next batch: one tenant's changes in arrival order, none past an earlier one of its station. */
  function take(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    /** stations whose earlier change stays waiting: their later ones stay too */
    const held = new Set<number>();
    let tenantId: number | null = null;
    for (const w of waiting) {
      const { id, tenantId: tenant } = w.change.station;
      const free = !writing.has(id) && !held.has(id);
      if (free && batch.length < batchSize && (tenantId === null || tenant === tenantId)) {
        tenantId = tenant;
        batch.push(w);
      } else {
        held.add(id);
        rest.push(w);
      }
    }
    waiting = rest;
    return batch;
  }

  function pump() {
    while (running < atOnce && waiting.length > 0) {
      const batch = take();
      if (batch.length === 0) return; // every waiting station has a change being written
      const stations = new Set(batch.map((w) => w.change.station.id));
      for (const id of stations) writing.add(id);
      running += 1;
      void write(batch).finally(() => {
        running -= 1;
        for (const id of stations) writing.delete(id);
        pump();
      });
    }
  }

  const record = (change: ConnectionChange) =>
    new Promise<number | null>((resolve, reject) => {
      waiting.push({
        change,
        settle: (outcome) =>
          "error" in outcome ? reject(outcome.error) : resolve(outcome.generation),
      });
      pump();
    });

  return {
    /**
     * The socket opened now. Resolves with the recorded connection, or null when the station
     * already has a connection accepted after this one on another gateway (this one never becomes
     * the station's: close it).
     */
    connected: async (station: Station, protocol: string): Promise<RecordedConnection | null> => {
      const at = new Date();
      const generation = await record({ kind: "connected", station, protocol, at });
      return generation === null ? null : { at, generation };
    },
    /** The connection of `generation` closed. */
    disconnected: async (station: Station, generation: number) => {
      await record({ kind: "disconnected", station, generation });
    },
    /** changes waiting or being written */
    pending: () => waiting.length + running,
  };
}
