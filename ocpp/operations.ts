import pg from "pg";
import type { Db } from "../server/db";
import { inTransaction } from "../server/db/retry";
import { completeOperation } from "../server/operations/complete-operation";
import { GATEWAY_STALE_MS, stationOffline } from "../server/operations/create-command";
import { interpretAnswer, type OcppCall } from "../server/operations/ocpp-commands";
import {
  recordDispatchOutcome,
  type DispatchOutcome,
} from "../server/operations/record-dispatch-outcome";
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
    const pending = await db.operation.findMany({
      where: { status: "dispatching", claimedBy: null },
      select: { id: true, stationId: true, createdAt: true },
      take: 500,
    });
    if (!pending.length) return;
    const gateways = await db.gateway.findMany({
      select: { id: true, heartbeatAt: true, stoppedAt: true },
    });
    const alive = new Set(
      gateways
        .filter((g) => !g.stoppedAt && g.heartbeatAt.getTime() > Date.now() - GATEWAY_STALE_MS)
        .map((g) => g.id),
    );
    for (const op of pending) {
      if (op.stationId && options.localClient(op.stationId)) {
        await tryDispatch(op.id);
        continue;
      }
      const station = op.stationId
        ? await db.station.findUnique({ where: { id: op.stationId }, select: { gatewayId: true } })
        : null;
      const ownerAlive = station?.gatewayId ? alive.has(station.gatewayId) : false;
      if (!ownerAlive && Date.now() - op.createdAt.getTime() > 2_000) {
        await inTransaction(db, (tx) =>
          completeOperation(tx, op.id, { status: "rejected", result: { error: stationOffline() } }),
        );
      }
    }
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
