import { z } from "zod";
import type { Db } from "../db";
import { gatewayAlive, gatewayQueue } from "../charging/gateways";
import { defineCronJob, defineJob, type JobDefinition } from "../jobs/define-job";
import { enqueue, type JobTarget } from "../jobs/enqueue";
import { rejectUnreachableOperations } from "./reject-unreachable-operations";
import {
  OUTCOME_RECORDING_MARGIN_MS,
  settleOrphanedOperations,
} from "./settle-orphaned-operations";

/**
 * How long a gateway waits for a charger's answer to an operation's call. Every gateway of a
 * deployment uses the same, since the sweep (run by any process) counts on it to decide when a
 * claimed operation's outcome will not come any more.
 */
export const OPERATION_CALL_TIMEOUT_MS = 30_000;

/** How often the operation sweep runs, once across all processes. */
export const OPERATION_SWEEP_MS = 1_000;

/**
 * An unclaimed operation older than this, of a station a live gateway holds, missed its NOTIFY
 * (the listener was reconnecting, or the station's socket was still being registered): the NOTIFY
 * normally gets it claimed within milliseconds.
 */
export const MISSED_NOTIFY_GRACE_MS = 500;

const redispatchPayload = z.object({});

/** How any process enqueues the re-dispatch job of gateway `gatewayId` (see `redispatchJob`). */
export function redispatchTarget(gatewayId: string): JobTarget<z.infer<typeof redispatchPayload>> {
  return {
    id: "operations.redispatch",
    payload: redispatchPayload,
    queue: gatewayQueue(gatewayId),
  };
}

/**
 * The gateway's own job: sends the unclaimed operations of the stations whose sockets it holds
 * (`redispatch`, which the gateway provides). It runs on the gateway's queue, so only that
 * gateway's runner claims it; the sweep enqueues it when the gateway has missed a NOTIFY.
 * Dispatch claims each operation before sending, so a re-dispatch racing the NOTIFY sends nothing
 * twice. The lease outlasts a call and the recording of its answer.
 */
export function redispatchJob(options: {
  gatewayId: string;
  redispatch: () => Promise<void>;
  callTimeoutMs: number;
}): JobDefinition<z.infer<typeof redispatchPayload>> {
  return defineJob({
    ...redispatchTarget(options.gatewayId),
    leaseMs: options.callTimeoutMs + OUTCOME_RECORDING_MARGIN_MS,
    handler: () => options.redispatch(),
  });
}

/**
 * The operation sweep, once per second across all processes: settles what was claimed and whose
 * outcome is lost (`settleOrphanedOperations`), rejects what no live gateway can send
 * (`rejectUnreachableOperations`), and asks each live gateway that holds a station with a missed
 * operation to send it (one `operations.redispatch` job on its queue per slot). `callTimeoutMs`
 * is the gateways' call timeout (`OPERATION_CALL_TIMEOUT_MS`; tests start gateways with less).
 */
export function operationSweepJob({ callTimeoutMs }: { callTimeoutMs: number }) {
  return defineCronJob({
    id: "operations.sweep",
    everyMs: OPERATION_SWEEP_MS,
    handler: async (slot, ctx) => {
      await settleOrphanedOperations({ db: ctx.db, callTimeoutMs });
      await rejectUnreachableOperations({ db: ctx.db });
      await requestRedispatch(ctx.db, slot);
    },
  });
}

/**
 * Enqueues, for the slot starting at `slot`, the re-dispatch job of every live gateway holding a
 * station with an operation that missed its NOTIFY. Keyed by gateway and slot: a slot's second run
 * adds nothing, and a gateway still busy with an earlier one gets the next all the same.
 */
export async function requestRedispatch(db: Db, slot: Date): Promise<string[]> {
  const rows = await db.$queryRaw<{ gateway_id: string }[]>`
    SELECT DISTINCT s.gateway_id FROM operations o
      JOIN stations s ON s.id = o.station_id
      JOIN gateways g ON g.id = s.gateway_id
     WHERE o.status = 'dispatching' AND o.claimed_by IS NULL
       AND o.created_at <= now() - make_interval(secs => ${MISSED_NOTIFY_GRACE_MS / 1000})
       AND ${gatewayAlive("g")}`;
  const gatewayIds = rows.map((r) => r.gateway_id);
  for (const gatewayId of gatewayIds)
    await enqueue(
      db,
      redispatchTarget(gatewayId),
      {},
      {
        key: `${gatewayId}:${slot.toISOString()}`,
      },
    );
  return gatewayIds;
}
