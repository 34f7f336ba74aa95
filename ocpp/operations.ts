import pg from "pg";
import type { Db } from "../server/db";
import { dispatchOperation } from "../server/operations/dispatch-operation";
import { redispatchJob } from "../server/operations/operation-jobs";
import { parseOperationNotice } from "../server/operations/operation-notice";
import {
  stationsWithUnclaimedOperations,
  unclaimedOperationIds,
} from "../server/operations/reject-unreachable-operations";
import { log } from "../server/log";
import { chargerLink, type CallingClient } from "./charger-link";
import { meteredLink } from "./metrics";

export type OperationRunnerOptions = {
  db: Db;
  databaseUrl: string;
  gatewayId: string;
  localClient: (stationId: number) => CallingClient | undefined;
  /** the stations whose sockets this gateway holds */
  localStationIds: () => number[];
  disconnect: (stationId: number) => void;
  callTimeoutMs: number;
};

/**
 * Sends operations to the chargers this gateway holds, whatever their kind. The API writes a
 * `dispatching` operation and NOTIFYs `operations` with its station and id; every gateway hears
 * it, the others drop it unread, and the one holding the station's socket dispatches it
 * (`dispatchOperation`: claimed before it is sent, so exactly once; an unconfirmed send becomes
 * `unknown`, never resent), a station's operations one after another in the order they were
 * written (`inLine`). A missed notification is caught by the operation sweep (a cron job,
 * `server/operations/operation-jobs.ts`), which enqueues `jobs`, this gateway's re-dispatch job,
 * on the gateway's own queue: the process's runner must serve it.
 */
export async function runOperations(options: OperationRunnerOptions) {
  const { db, gatewayId } = options;
  const listener = new pg.Client({ connectionString: options.databaseUrl });
  listener.on("error", (error) => log.error("operations listener failed", { error }));
  await listener.connect();
  await listener.query("LISTEN operations");
  await listener.query("LISTEN station_control");
  listener.on("notification", (message) => {
    if (message.channel === "operations" && message.payload) noticed(message.payload);
    if (message.channel === "station_control" && message.payload) {
      const stationId = Number(message.payload);
      if (Number.isInteger(stationId)) options.disconnect(stationId);
    }
  });

  const link = (stationId: number) => {
    const client = options.localClient(stationId);
    return client && meteredLink(chargerLink(client, options.callTimeoutMs));
  };

  /** per station held here: its line, which sends its operations one after another */
  const lines = new Map<number, { again: boolean; done: Promise<void> }>();

  /**
   * A notice of an operation written (`server/operations/operation-notice.ts`): a station held
   * here has its line run; any other is none of this gateway's business, and costs no read.
   */
  function noticed(payload: string) {
    const notice = parseOperationNotice(payload);
    if (!notice) return log.warn("an operations notice not understood", { payload });
    if (notice.stationId === null) return void dispatch(notice.operationId);
    if (options.localClient(notice.stationId)) void inLine(notice.stationId);
  }

  /**
   * An operation to send (a notice in the older form, without its station, or `sendAndSettle`):
   * its station's line is run, and this resolves once the line has sent what it found, this one
   * too.
   */
  async function dispatch(operationId: string) {
    let stationId: number | null;
    try {
      const row = await db.operation.findUnique({
        where: { id: operationId },
        select: { stationId: true, status: true, claimedBy: true },
      });
      if (!row || row.status !== "dispatching" || row.claimedBy !== null) return;
      stationId = row.stationId;
    } catch (error) {
      log.error("reading an operation to dispatch failed", { operationId, error });
      return;
    }
    if (stationId === null || !options.localClient(stationId)) return; // not held here
    await inLine(stationId);
  }

  /**
   * Sends the station's unclaimed operations in the order they were written (`seq`), each claimed,
   * sent and completed before the next is claimed: ocpp-rpc sends calls in the order they are made,
   * so concurrent dispatches of one station's operations would reach the charger in whichever order
   * their claims returned (a configuration change after the reset it was meant to precede). One
   * line per station at a time; a dispatch arriving while it runs has it look again when done.
   * Never throws: what it could not send waits for the next notification or the sweep.
   */
  function inLine(stationId: number): Promise<void> {
    const running = lines.get(stationId);
    if (running) {
      running.again = true;
      return running.done;
    }
    const line = { again: true, done: Promise.resolve() };
    lines.set(stationId, line);
    line.done = (async () => {
      try {
        while (line.again) {
          line.again = false;
          for (const id of await unclaimedOperationIds({ db, stationIds: [stationId] }))
            await sendOne(id);
        }
      } catch (error) {
        log.error("reading a station's operations to dispatch failed", { stationId, error });
      } finally {
        lines.delete(stationId);
      }
    })();
    return line.done;
  }

  async function sendOne(operationId: string) {
    try {
      await dispatchOperation({ db, operationId, gatewayId, link });
    } catch (error) {
      log.error("dispatching an operation failed", { operationId, error });
    }
  }

  // Every station held here with an operation waiting, at once: each line sends its own in order.
  async function redispatch() {
    const stations = await stationsWithUnclaimedOperations({
      db,
      stationIds: options.localStationIds(),
    });
    await Promise.all(stations.map((stationId) => inLine(stationId)));
  }

  /**
   * Sends these operations now, each through the same claim as a notification's (so once), and
   * waits until every one is final: the ones this call claimed are when their send returns; one
   * the notification claimed first is read until it is, for at most a call timeout and a second.
   */
  async function sendAndSettle(operationIds: string[]) {
    await Promise.all(operationIds.map((id) => dispatch(id)));
    const deadline = Date.now() + options.callTimeoutMs + 1_000;
    while (Date.now() < deadline) {
      const open = await db.operation.count({
        where: { id: { in: operationIds }, status: "dispatching" },
      });
      if (!open) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  return {
    sendAndSettle,
    jobs: [redispatchJob({ gatewayId, redispatch, callTimeoutMs: options.callTimeoutMs })],
    stop: async () => {
      await listener.end().catch(() => {});
    },
  };
}
