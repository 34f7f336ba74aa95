import pg from "pg";
import type { Db } from "../server/db";
import { dispatchOperation } from "../server/operations/dispatch-operation";
import { redispatchJob } from "../server/operations/operation-jobs";
import { unclaimedOperationIds } from "../server/operations/reject-unreachable-operations";
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
 * `dispatching` operation and NOTIFYs `operations`; every gateway hears it and the one holding the
 * station's socket dispatches it (`dispatchOperation`: claimed before it is sent, so exactly once;
 * an unconfirmed send becomes `unknown`, never resent). A missed notification is caught by the
 * operation sweep (a cron job, `server/operations/operation-jobs.ts`), which enqueues `jobs`, this
 * gateway's re-dispatch job, on the gateway's own queue: the process's runner must serve it.
 */
export async function runOperations(options: OperationRunnerOptions) {
  const { db, gatewayId } = options;
  const listener = new pg.Client({ connectionString: options.databaseUrl });
  listener.on("error", (error) => log.error("operations listener failed", { error }));
  await listener.connect();
  await listener.query("LISTEN operations");
  await listener.query("LISTEN station_control");
  listener.on("notification", (message) => {
    if (message.channel === "operations" && message.payload) void dispatch(message.payload);
    if (message.channel === "station_control" && message.payload) {
      const stationId = Number(message.payload);
      if (Number.isInteger(stationId)) options.disconnect(stationId);
    }
  });

  const link = (stationId: number) => {
    const client = options.localClient(stationId);
    return client && meteredLink(chargerLink(client, options.callTimeoutMs));
  };

  async function dispatch(operationId: string) {
    try {
      await dispatchOperation({ db, operationId, gatewayId, link });
    } catch (error) {
      log.error("dispatching an operation failed", { operationId, error });
    }
  }

  // All at once, as their notifications would have come: each is claimed before it is sent, and
  // ocpp-rpc still sends one call at a time on a socket (callConcurrency 1).
  async function redispatch() {
    const missed = await unclaimedOperationIds({ db, stationIds: options.localStationIds() });
    await Promise.all(missed.map((id) => dispatch(id)));
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
