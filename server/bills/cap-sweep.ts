import { gatewayAlive } from "../charging/gateways";
import type { Db } from "../db";
import { lockStation } from "../db/locks";
import { inTransaction } from "../db/retry";
import { Prisma } from "../generated/prisma/client";
import { defineCronJob } from "../jobs/define-job";
import {
  CAP_CONFIRM_WAIT_MS,
  CAP_RETRY_BASE_MS,
  CAP_RETRY_MAX_MS,
  CAP_SWEEP_MS,
  sendCapOperation,
} from "./cap-stop";

type DueBill = {
  id: string;
  tenant_id: number;
  station_id: number;
  transaction_id: number;
  cap_attempts: number;
  gateway_id: string;
};

/**
 * The bills whose charger the cap must call again at `now`: managed bills the cap is stopping
 * (`charging`, `stop_reason` `hold_limit`) whose transaction has not ended, whose station a live
 * gateway holds (an offline charger is called when it is back), and whose latest cap operation
 * is final and due for a successor:
 * - at once when the station's connection is newer than the one that operation was sent on (or
 *   refused for): a charger that dropped the connection mid-stop, or was offline, is called again
 *   as soon as it reconnects;
 * - a charger that accepted it: after CAP_CONFIRM_WAIT_MS without the transaction ending;
 * - refused, or no confirmed answer: after 10 s doubling with each call, at most 5 min.
 * A stop is never sent twice for one operation (operations are not resent); each call is a new
 * operation with its own message id.
 */
function dueBills(now: Date) {
  const secs = (ms: number) => ms / 1000;
  return Prisma.sql`
    FROM bills b
    JOIN transactions t ON t.id = b.transaction_id
    JOIN operations o ON o.id = b.stop_operation_id
    JOIN stations s ON s.id = b.station_id
    JOIN gateways g ON g.id = s.gateway_id
    WHERE b.status = 'charging' AND b.stop_reason = 'hold_limit'
      AND t.ended_at IS NULL
      AND o.status <> 'dispatching'
      AND ${gatewayAlive("g")}
      AND (s.connected_at > COALESCE(o.claimed_at, o.created_at)
        OR o.completed_at <= ${now}::timestamptz - make_interval(secs => CASE
          WHEN o.status = 'succeeded' THEN ${secs(CAP_CONFIRM_WAIT_MS)}::float8
          ELSE LEAST(${secs(CAP_RETRY_BASE_MS)}::float8
                       * power(2, LEAST(GREATEST(b.cap_attempts - 1, 0), 16)),
                     ${secs(CAP_RETRY_MAX_MS)}::float8)
          END))`;
}

const COLUMNS = Prisma.sql`b.id, b.tenant_id, b.station_id, b.transaction_id, b.cap_attempts,
  s.gateway_id`;

/**
 * Sends the next cap operation of every bill due at `now` (`dueBills`): each in its own
 * transaction, which locks the station, then the bill (the lock order), checks again that it is
 * due, creates the operation (sent by the gateway holding the socket after the commit, never
 * inside it) and records it on the bill. Runs from the cap's cron job; a test passes `now` to
 * skip the waits. Returns the ids of the operations created.
 */
export async function sweepLiveCaps({
  db,
  now = new Date(),
  limit = 200,
}: {
  db: Db;
  now?: Date;
  limit?: number;
}) {
  const due = await db.$queryRaw<DueBill[]>`
    SELECT ${COLUMNS} ${dueBills(now)} ORDER BY b.id LIMIT ${limit}`;
  const sent: string[] = [];
  for (const candidate of due) {
    const operationId = await inTransaction(db, async (tx) => {
      await lockStation(tx, candidate.station_id);
      const [bill] = await tx.$queryRaw<DueBill[]>`
        SELECT ${COLUMNS} ${dueBills(now)} AND b.id = ${candidate.id} FOR NO KEY UPDATE OF b`;
      if (!bill) return null; // the transaction ended, or another run sent it meanwhile
      const attempt = bill.cap_attempts + 1;
      const operation = await sendCapOperation(
        tx,
        { id: bill.id, tenantId: bill.tenant_id, stationId: bill.station_id },
        bill.transaction_id,
        attempt,
        bill.gateway_id,
      );
      await tx.bill.update({
        where: { id: bill.id },
        data: { stopOperationId: operation.id, capAttempts: attempt },
        select: { id: true },
      });
      return operation.id;
    });
    if (operationId) sent.push(operationId);
  }
  return sent;
}

/**
 * The cap's sweep, once per CAP_SWEEP_MS across all processes (`everyMs`: tests run it faster).
 * A job over rows rather than a timer in a gateway, so a restart of any process loses nothing:
 * the next slot finds what is due.
 */
export function capSweepJob({ everyMs = CAP_SWEEP_MS }: { everyMs?: number } = {}) {
  return defineCronJob({
    id: "bills.cap-sweep",
    everyMs,
    handler: async (_slot, ctx) => {
      await sweepLiveCaps({ db: ctx.db });
    },
  });
}
