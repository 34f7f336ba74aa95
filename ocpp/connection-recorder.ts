import type { Db } from "../server/db";
import {
  CONNECTION_BATCH_SIZE,
  recordConnectionChanges,
  type ConnectionChange,
  type Ride,
} from "../server/charging/connections";
import type { CallOutcome, StationMessage } from "../server/charger-reports/call-batch";
import { markStation } from "./phase-trace";

type Station = { id: number; tenantId: number };
type Waiting = {
  change: ConnectionChange;
  settle: (outcome: { generation: number | null } | { error: Error }) => void;
  /** its connection's first call, riding with this connect (`ride`) */
  ride?: { message: StationMessage; answer: (outcome: CallOutcome) => void };
  /** taken into a batch: too late for a ride */
  taken?: boolean;
  /**
   * a connect that waits for its connection's first call to ride along, until this moment
   * (`performance.now()`) at the latest; the call's arrival ends the wait
   */
  holdUntil?: number;
};

/**
 * Longest a 1.6 charger's connect waits for the charger's first call (its BootNotification, sent
 * as soon as the socket opens) before it is written alone. Written alone, the connect's commit
 * comes first and the Boot waits for it, then for a call batch of its own: two commits in a row
 * (about 80 ms of a new charger's time at a load of 7 here, against a wait of a few ms).
 */
export const FIRST_CALL_WAIT_MS = 20;

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
  firstCallWaitMs = FIRST_CALL_WAIT_MS,
}: {
  db: Db;
  gatewayId: string;
  batchSize?: number;
  atOnce?: number;
  firstCallWaitMs?: number;
}) {
  let waiting: Waiting[] = [];
  /** stations with a change being written */
  const writing = new Set<number>();
  let running = 0;
  /** the next pump, when a held connect's wait ends */
  let wake: NodeJS.Timeout | undefined;

  const failed = (error: unknown) =>
    error instanceof Error ? error : new Error(`recording failed: ${String(error)}`);

  async function write(batch: Waiting[]) {
    for (const w of batch) markStation(w.change.station.id, `${w.change.kind}.write`);
    const riding = batch.filter((w) => w.ride);
    const rides: Ride[] = riding.map((w) => ({ connect: w.change, message: w.ride!.message }));
    /** a ride the transaction did not record is recorded alone by its caller */
    let answers: CallOutcome[] = [];
    try {
      const outcomes = await recordConnectionChanges(
        db,
        gatewayId,
        batch.map((w) => w.change),
        rides,
      );
      answers = outcomes.rides ?? [];
      for (const w of batch) markStation(w.change.station.id, `${w.change.kind}.commit`);
      batch.forEach((w, i) => w.settle({ generation: outcomes[i] ?? null }));
    } catch {
      // One change the lot cannot apply (its station deleted meanwhile): each on its own, in order.
      for (const w of batch)
        await recordConnectionChanges(db, gatewayId, [w.change]).then(
          ([generation]) => w.settle({ generation: generation ?? null }),
          (error: unknown) => w.settle({ error: failed(error) }),
        );
    } finally {
      // After the settles: the caller that rode learns its connect's generation first.
      riding.forEach((w, i) => w.ride!.answer(answers[i] ?? { perMessage: true }));
    }
  }

  /** The next batch: one tenant's changes in arrival order, none past an earlier one of its station. */
  function take(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    /** stations whose earlier change stays waiting: their later ones stay too */
    const held = new Set<number>();
    let tenantId: number | null = null;
    const now = performance.now();
    for (const w of waiting) {
      const { id, tenantId: tenant } = w.change.station;
      const waitsForCall = w.holdUntil !== undefined && !w.ride && w.holdUntil > now;
      const free = !writing.has(id) && !held.has(id) && !waitsForCall;
      if (free && batch.length < batchSize && (tenantId === null || tenant === tenantId)) {
        tenantId = tenant;
        w.taken = true;
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
      if (batch.length === 0) {
        // every waiting station has a change being written, or a connect waiting for its call
        const holds = waiting.filter((w) => w.holdUntil !== undefined && !w.ride);
        if (holds.length && !wake) {
          const at = Math.min(...holds.map((w) => w.holdUntil!));
          wake = setTimeout(
            () => {
              wake = undefined;
              pump();
            },
            Math.max(0, at - performance.now()) + 1,
          );
        }
        return;
      }
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

  const record = (change: ConnectionChange, entry?: (w: Waiting) => void) =>
    new Promise<number | null>((resolve, reject) => {
      const w: Waiting = {
        change,
        settle: (outcome) =>
          "error" in outcome ? reject(outcome.error) : resolve(outcome.generation),
      };
      entry?.(w);
      waiting.push(w);
      pump();
    });

  /**
   * The connect's first call goes with it when the connect is still waiting (`Ride`): resolves
   * with its answer, or `perMessage` when the transaction did not record it. Null when the connect
   * is already being written (or it has a call riding): the caller records the call as usual.
   */
  const rideWith =
    (w: Waiting) =>
    (message: StationMessage): Promise<CallOutcome> | null => {
      if (w.ride || w.taken) return null;
      const along = new Promise<CallOutcome>((answer) => (w.ride = { message, answer }));
      pump(); // a connect that waited for this call may go now
      return along;
    };

  /** `awaitFirstCall`: the connect waits up to `firstCallWaitMs` for its first call to ride */
  function connect(station: Station, protocol: string, awaitFirstCall = false) {
    const at = new Date();
    let ride!: ReturnType<typeof rideWith>;
    const recorded = record({ kind: "connected", station, protocol, at }, (w) => {
      if (awaitFirstCall && firstCallWaitMs > 0) w.holdUntil = performance.now() + firstCallWaitMs;
      ride = rideWith(w);
    }).then((generation) => (generation === null ? null : { at, generation }));
    return { recorded, ride };
  }

  return {
    /**
     * The socket opened now. Resolves with the recorded connection, or null when the station
     * already has a connection accepted after this one on another gateway (this one never becomes
     * the station's: close it).
     */
    connected: (station: Station, protocol: string): Promise<RecordedConnection | null> =>
      connect(station, protocol).recorded,
    /**
     * `connected`, with `ride`: the connection's first call, recorded in its connect's transaction
     * while the connect still waits (null otherwise, see `rideWith`). With `awaitFirstCall` (a
     * charger whose first call may ride) the connect waits for that call, at most
     * `firstCallWaitMs`, before it is written.
     */
    connect,

    /** The connection of `generation` closed. */
    disconnected: async (station: Station, generation: number) => {
      await record({ kind: "disconnected", station, generation });
    },
    /** changes waiting or being written */
    pending: () => waiting.length + running,
  };
}
