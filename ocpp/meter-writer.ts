import type { Db } from "../server/db";
import { inTransaction } from "../server/db/retry";
import {
  recordMeterBatch,
  type MeterMessage,
  type MeterOutcome,
} from "../server/charging/meter-batch";
import { log } from "../server/log";

export type MeterWriterOptions = {
  db: Db;
  /** most messages in one transaction */
  maxBatch?: number;
  /** batches in flight at once (each holds one pooled connection) */
  concurrency?: number;
};

type Pending = { message: MeterMessage; resolve: (outcome: MeterOutcome) => void };

/**
 * Group commit for MeterValues: messages arriving while earlier batches are being written wait
 * and go together in the next transaction (`recordMeterBatch`), so a busy gateway pays a few
 * round trips and one commit per batch instead of per message, and a quiet one writes each
 * message at once. Each charger still gets its answer only after its batch committed. A station
 * appears at most once in a batch (its calls run one at a time anyway; a second socket of the same
 * station waits for the next batch). A batch that fails for any reason but a conflict (retried
 * whole) answers `perMessage` for all its messages, so each is recorded, or refused, alone.
 */
export function createMeterWriter({ db, maxBatch = 250, concurrency = 2 }: MeterWriterOptions) {
  let pending: Pending[] = [];
  let running = 0;

  function take(): Pending[] {
    const batch: Pending[] = [];
    const stations = new Set<number>();
    const rest: Pending[] = [];
    for (const item of pending) {
      const station = item.message.charger.stationId;
      if (batch.length < maxBatch && !stations.has(station)) {
        stations.add(station);
        batch.push(item);
      } else rest.push(item);
    }
    pending = rest;
    return batch;
  }

  function schedule() {
    while (running < concurrency && pending.length) {
      const batch = take();
      running++;
      void write(batch).finally(() => {
        running--;
        schedule();
      });
    }
  }

  async function write(batch: Pending[]) {
    let outcomes: MeterOutcome[];
    try {
      outcomes = await inTransaction(
        db,
        (tx) =>
          recordMeterBatch(
            tx,
            batch.map((p) => p.message),
          ),
        { maxWait: 10_000, timeout: 15_000 },
      );
    } catch (error) {
      log.warn("a MeterValues batch failed; its messages are recorded one by one", {
        messages: batch.length,
        error,
      });
      outcomes = batch.map(() => ({ perMessage: true }));
    }
    batch.forEach((p, i) => p.resolve(outcomes[i] ?? { perMessage: true }));
  }

  return {
    submit: (message: MeterMessage) =>
      new Promise<MeterOutcome>((resolve) => {
        pending.push({ message, resolve });
        schedule();
      }),
  };
}
