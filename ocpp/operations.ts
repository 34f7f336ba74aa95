import pg from "pg";
import type { Db } from "../server/db";
import { dispatchOperation } from "../server/operations/dispatch-operation";
import {
  rejectUnreachableOperations,
  unclaimedOperationIds,
} from "../server/operations/reject-unreachable-operations";
import { settleOrphanedOperations } from "../server/operations/settle-orphaned-operations";
import { log } from "../server/log";
import { chargerLink, type CallingClient } from "./charger-link";

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
 * an unconfirmed send becomes `unknown`, never resent). A sweep every second catches missed
 * notifications and runs the server's sweeps: `settleOrphanedOperations` (claimed, outcome lost)
 * and `rejectUnreachableOperations` (unclaimed, no live gateway holds the station).
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
    return client && chargerLink(client, options.callTimeoutMs);
  };

  async function dispatch(operationId: string) {
    try {
      await dispatchOperation({ db, operationId, gatewayId, link });
    } catch (error) {
      log.error("dispatching an operation failed", { operationId, error });
    }
  }

  async function sweep() {
    await settleOrphanedOperations({ db, callTimeoutMs: options.callTimeoutMs });
    await rejectUnreachableOperations({ db });
    const missed = await unclaimedOperationIds({ db, stationIds: options.localStationIds() });
    for (const id of missed) await dispatch(id);
  }

  let running = true;
  const timer = setInterval(() => {
    if (!running) return;
    sweep().catch((error: unknown) => log.error("operations sweep failed", { error }));
  }, 1_000);
  timer.unref();

  return {
    stop: async () => {
      running = false;
      clearInterval(timer);
      await listener.end().catch(() => {});
    },
  };
}
