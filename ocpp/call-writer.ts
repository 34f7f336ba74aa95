import type { Db } from "../server/db";
import { inTransaction } from "../server/db/retry";
import {
  recordCallBatch,
  type CallMessage,
  type CallOutcome,
} from "../server/charger-reports/call-batch";
import { log } from "../server/log";
import { markStation } from "./phase-trace";

export type CallWriterOptions = {
  db: Db;
  /** most messages in one transaction */
  maxBatch?: number;
  /** batches in flight at once (each holds one pooled connection) */
  concurrency?: number;
  /** messages waiting that start a batch alongside one in flight (`schedule`) */
  overlapAt?: number;
};

type Pending = { message: CallMessage; resolve: (outcome: CallOutcome) => void };

/**
 * Group commit for charger calls that record per station (MeterValues, BootNotification,
 * StatusNotification): messages arriving while earlier batches are being written wait and go
 * together in the next transaction (`recordCallBatch`), so a busy gateway pays a few
 * round trips and one commit per batch instead of per message, and a quiet one writes each
 * message at once. Each charger still gets its answer only after its batch committed. A station
 * appears at most once in a batch (its calls run one at a time anyway; a second socket of the same
 * station waits for the next batch). A batch that fails for any reason but a conflict (retried
 * whole) answers `perMessage` for all its messages, so each is recorded, or refused, alone.
 */
export function createCallWriter({
  db,
  maxBatch = 250,
  concurrency = 2,
  overlapAt = 20,
}: CallWriterOptions) {
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

  /**
   * A batch starts at once when none is being written (a quiet gateway writes each message at
   * once); another one alongside only for a backlog of `overlapAt` messages. Below it, what
   * arrives waits for the batch in flight and goes in the next, larger one: each batch's fixed
   * cost (its round trips, statements and commit, most of a small batch's CPU) is shared by more
   * messages, at the price of one batch's time at most for those that wait.
   */
  function schedule() {
    while (
      pending.length &&
      (running === 0 || (running < concurrency && pending.length >= overlapAt))
    ) {
      const batch = take();
      running++;
      void write(batch).finally(() => {
        running--;
        schedule();
      });
    }
  }

  async function write(batch: Pending[]) {
    for (const p of batch) markStation(p.message.charger.stationId, `${p.message.action}.write`);
    let outcomes: CallOutcome[];
    try {
      outcomes = await inTransaction(
        db,
        (tx) =>
          recordCallBatch(
            tx,
            batch.map((p) => p.message),
          ),
        { maxWait: 10_000, timeout: 15_000 },
      );
    } catch (error) {
      log.warn("a batch of charger calls failed; its messages are recorded one by one", {
        messages: batch.length,
        error,
      });
      outcomes = batch.map(() => ({ perMessage: true }));
    }
    for (const p of batch) markStation(p.message.charger.stationId, `${p.message.action}.commit`);
    batch.forEach((p, i) => p.resolve(outcomes[i] ?? { perMessage: true }));
  }

  return {
    submit: (message: CallMessage) =>
      new Promise<CallOutcome>((resolve) => {
        pending.push({ message, resolve });
        schedule();
      }),
  };
}
