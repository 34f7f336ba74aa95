import type { Db } from "../server/db";
import {
  CONNECTION_BATCH_SIZE,
  recordConnectionChanges,
  type ConnectionChange,
} from "../server/charging/connections";

type Station = { id: number; tenantId: number };
type Waiting = { change: ConnectionChange; settle: (error?: Error) => void };

/**
 * Records this gateway's connects and disconnects in batches: changes wait here in arrival order,
 * where a wait has no deadline, and go out up to `batchSize` of one tenant per transaction
 * (`recordConnectionChanges`), at most `atOnce` transactions at a time. A burst (every socket of
 * a network blip closing, a reconnect storm) used to queue one transaction per station in the
 * database pool, where waits time out after 2 s: the records were lost and their stations shown
 * online with no socket. Batches hold one tenant each, so a transaction takes one event counter.
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
  const waiting: Waiting[] = [];
  let running = 0;

  async function write(batch: Waiting[]) {
    try {
      await recordConnectionChanges(
        db,
        gatewayId,
        batch.map((w) => w.change),
      );
      for (const w of batch) w.settle();
    } catch {
      // One change the lot cannot apply (its station deleted meanwhile): each on its own.
      for (const w of batch)
        await recordConnectionChanges(db, gatewayId, [w.change]).then(
          () => w.settle(),
          (error: unknown) =>
            w.settle(
              error instanceof Error ? error : new Error(`recording failed: ${String(error)}`),
            ),
        );
    }
  }

  function pump() {
    while (running < atOnce && waiting.length > 0) {
      const tenantId = waiting[0]!.change.station.tenantId;
      const batch: Waiting[] = [];
      for (let i = 0; i < waiting.length && batch.length < batchSize;) {
        if (waiting[i]!.change.station.tenantId === tenantId) batch.push(waiting.splice(i, 1)[0]!);
        else i += 1;
      }
      running += 1;
      void write(batch).finally(() => {
        running -= 1;
        pump();
      });
    }
  }

  const record = (change: ConnectionChange) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ change, settle: (error) => (error ? reject(error) : resolve()) });
      pump();
    });

  return {
    /** the socket opened now; resolves with the time that identifies this connection */
    connected: async (station: Station, protocol: string) => {
      const at = new Date();
      await record({ kind: "connected", station, protocol, at });
      return at;
    },
    disconnected: (station: Station, connectedAt: Date) =>
      record({ kind: "disconnected", station, connectedAt }),
    /** changes waiting or being written */
    pending: () => waiting.length + running,
  };
}
