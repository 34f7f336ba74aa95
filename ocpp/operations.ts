import pg from "pg";
import type { Db } from "../server/db";
import { releaseDeadGateways } from "../server/charging/connections";
import { interpretAnswer, type OcppCall } from "../server/operations/ocpp-commands";
import {
  recordDispatchOutcome,
  type DispatchOutcome,
} from "../server/operations/record-dispatch-outcome";
import {
  rejectUnreachableOperations,
  unclaimedOperationIds,
} from "../server/operations/reject-unreachable-operations";
import { settleOrphanedOperations } from "../server/operations/settle-orphaned-operations";
import { log } from "../server/log";

type Sender = {
  call: (method: string, params: unknown, options?: { callTimeoutMs?: number }) => Promise<unknown>;
};

export type OperationRunnerOptions = {
  db: Db;
  databaseUrl: string;
  gatewayId: string;
  localClient: (stationId: number) => Sender | undefined;
  /** the stations whose sockets this gateway holds */
  localStationIds: () => number[];
  disconnect: (stationId: number) => void;
  callTimeoutMs: number;
};

/**
 * Sends operator commands to the chargers this gateway holds. The API writes a `dispatching`
 * operation and NOTIFYs `operations`; every gateway hears it and the one holding the station's
 * socket claims it (a conditional UPDATE, so exactly one) BEFORE sending. A send whose answer is
 * not confirmed becomes `unknown`, never resent. A sweep every second catches missed
 * notifications, rejects what no live gateway can send (`station_offline`), and marks `unknown`
 * claimed operations whose outcome can no longer be recorded (`settleOrphanedOperations`).
 */
export async function runOperations(options: OperationRunnerOptions) {
  const { db, gatewayId } = options;
  const listener = new pg.Client({ connectionString: options.databaseUrl });
  listener.on("error", (error) => log.error("operations listener failed", { error }));
  await listener.connect();
  await listener.query("LISTEN operations");
  await listener.query("LISTEN station_control");
  listener.on("notification", (message) => {
    if (message.channel === "operations" && message.payload) void tryDispatch(message.payload);
    if (message.channel === "station_control" && message.payload) {
      const stationId = Number(message.payload);
      if (Number.isInteger(stationId)) options.disconnect(stationId);
    }
  });

  async function tryDispatch(operationId: string) {
    try {
      const operation = await db.operation.findUnique({ where: { id: operationId } });
      if (
        !operation ||
        operation.status !== "dispatching" ||
        operation.claimedBy ||
        !operation.stationId ||
        !operation.ocppCall
      )
        return;
      const client = options.localClient(operation.stationId);
      if (!client) return; // another gateway holds it, or the sweep will reject it
      const claimed = await db.operation.updateMany({
        where: { id: operationId, status: "dispatching", claimedBy: null },
        data: { claimedBy: gatewayId, claimedAt: new Date() },
      });
      if (claimed.count === 0) return;
      const call = operation.ocppCall as unknown as OcppCall;
      let outcome: DispatchOutcome;
      try {
        const answer = await client.call(call.action, call.payload, {
          callTimeoutMs: options.callTimeoutMs,
        });
        outcome = interpretAnswer(answer);
      } catch (error) {
        const rpcCode = (error as { rpcErrorCode?: string }).rpcErrorCode;
        outcome = rpcCode
          ? {
              status: "rejected",
              result: {
                error: {
                  code: "charger_error",
                  message: `The charger answered with ${rpcCode}.`,
                  details: { rpc_error_code: rpcCode },
                },
              },
            }
          : {
              status: "unknown",
              result: {
                error: {
                  code: "dispatch_unconfirmed",
                  message:
                    "The charger did not confirm the command; reconcile before sending it again.",
                  details: { reason: (error as Error).message },
                },
              },
            };
      }
      await recordDispatchOutcome({ db, operation, outcome });
    } catch (error) {
      log.error("dispatching an operation failed", { operationId, error });
    }
  }

  async function sweep() {
    await settleOrphanedOperations({ db, callTimeoutMs: options.callTimeoutMs });
    await rejectUnreachableOperations({ db });
    const missed = await unclaimedOperationIds({ db, stationIds: options.localStationIds() });
    for (const id of missed) await tryDispatch(id);
  }

  let running = true;
  let ticks = 0;
  const timer = setInterval(() => {
    if (!running) return;
    sweep().catch((error: unknown) => log.error("operations sweep failed", { error }));
    // Every few seconds: stations held by a gateway that died go offline (with their events).
    if (++ticks % 5 === 0) {
      releaseDeadGateways({ db }).catch((error: unknown) =>
        log.error("releasing dead gateways failed", { error }),
      );
    }
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
