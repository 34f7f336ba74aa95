import type { Db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { inTransaction } from "../db/retry";
import { gatewayAlive } from "../charging/gateways";
import { completeOperation } from "./complete-operation";

/** Longer than recording a charger's answer takes, retries included, after the call has ended. */
export const OUTCOME_RECORDING_MARGIN_MS = 10_000;
/**
 * How long after its connection changed a claimed operation may still get the outcome its sender
 * is recording (an answer that arrived just before the socket closed).
 */
export const CONNECTION_GONE_GRACE_MS = 5_000;

type Reason = "gateway_stopped" | "connection_closed" | "outcome_not_recorded";

const MESSAGES: Record<Reason, string> = {
  gateway_stopped: "The gateway sending this command stopped before the charger answered.",
  connection_closed: "The charger's connection closed before its answer was recorded.",
  outcome_not_recorded: "No answer to this command was recorded within the call timeout.",
};

/**
 * Settles claimed `dispatching` operations whose sender can no longer report an outcome, as
 * `unknown` with `dispatch_unconfirmed` (the charger may have acted on the command; it is never
 * sent again, so nothing is dispatched twice). An operation is orphaned when:
 * - the gateway that claimed it is not alive (`gatewayAlive`: stopped, or its heartbeat is stale);
 * - the connection it was sent on is gone: the station is no longer held by the claiming gateway,
 *   or reconnected after the claim (`connected_at`), and the change is older than a short grace
 *   (the later of the claim, `connected_at` and the row's `updated_at`, which the disconnect's
 *   write sets);
 * - or the claim is older than the call timeout plus a margin: the send has ended either way, so
 *   an outcome that is still missing will not come (its recording failed).
 * Unclaimed operations are left to the dispatcher. Returns the number settled.
 */
export async function settleOrphanedOperations({
  db,
  callTimeoutMs,
  limit = 500,
}: {
  db: Db;
  callTimeoutMs: number;
  limit?: number;
}) {
  const secs = (ms: number) => ms / 1000;
  const senderGone = Prisma.sql`(NOT ${gatewayAlive("g")})`;
  const connectionGone = Prisma.sql`((s.id IS NULL OR s.gateway_id IS DISTINCT FROM o.claimed_by
      OR s.connected_at > o.claimed_at)
    AND GREATEST(o.claimed_at, s.connected_at, s.updated_at)
      <= now() - make_interval(secs => ${secs(CONNECTION_GONE_GRACE_MS)}))`;
  const sendEnded = Prisma.sql`(o.claimed_at
    <= now() - make_interval(secs => ${secs(callTimeoutMs + OUTCOME_RECORDING_MARGIN_MS)}))`;
  const rows = await db.$queryRaw<{ id: string; reason: Reason }[]>`
    SELECT o.id,
      CASE WHEN ${senderGone} THEN 'gateway_stopped'
           WHEN ${connectionGone} THEN 'connection_closed'
           ELSE 'outcome_not_recorded' END AS reason
    FROM operations o
    LEFT JOIN gateways g ON g.id = o.claimed_by
    LEFT JOIN stations s ON s.id = o.station_id
    WHERE o.status = 'dispatching' AND o.claimed_by IS NOT NULL
      AND (${senderGone} OR ${connectionGone} OR ${sendEnded})
    ORDER BY o.claimed_at
    LIMIT ${limit}`;
  let settled = 0;
  for (const { id, reason } of rows) {
    const done = await inTransaction(db, (tx) =>
      completeOperation(tx, id, {
        status: "unknown",
        result: {
          error: { code: "dispatch_unconfirmed", message: MESSAGES[reason], details: { reason } },
        },
      }),
    );
    if (done) settled++;
  }
  return settled;
}
