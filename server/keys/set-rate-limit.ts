import { db as defaultDb, type Db, type DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import { appendWorkspaceEvent } from "../events/workspace-events";
import type { ApiKey } from "../generated/prisma/client";

export const RATE_LIMIT_MIN = 1;
export const RATE_LIMIT_MAX = 1200;

export type SetRateLimitOptions = {
  keyId: string;
  perMinute: number;
  /** the user who changed it; null for the operator's command line */
  changedBy: number | null;
  /** throws to refuse, given the key's team, inside the transaction that holds the key's lock */
  authorize?: (teamId: number, tx: DbTx) => Promise<void>;
  db?: Db;
};

/**
 * Changes a key's per-minute limit. The limiter reads the key's row on every request and counts
 * against the window already under way, so the new limit applies from the next request. The key is
 * locked so `previous` is the value this change replaced, even under concurrent changes. Recorded
 * as `api_key.rate_limit_changed` in the key's workspace event log (its team's) and, for a project
 * key, in that project's event log too (where webhooks carry it). Null for an unknown key.
 */
export async function setApiKeyRateLimit({
  keyId,
  perMinute,
  changedBy,
  authorize,
  db = defaultDb(),
}: SetRateLimitOptions): Promise<ApiKey | null> {
  if (!Number.isInteger(perMinute) || perMinute < RATE_LIMIT_MIN || perMinute > RATE_LIMIT_MAX) {
    throw new RangeError(
      `rate limit must be an integer from ${RATE_LIMIT_MIN} to ${RATE_LIMIT_MAX}`,
    );
  }
  return db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM api_keys WHERE id = ${keyId} FOR UPDATE`;
    if (!locked[0]) return null;
    const key = await tx.apiKey.findUniqueOrThrow({
      where: { id: keyId },
      include: { tenant: { select: { teamId: true } } },
    });
    const teamId = key.tenant?.teamId ?? key.teamId;
    if (teamId === null) return null;
    await authorize?.(teamId, tx);
    const updated = await tx.apiKey.update({
      where: { id: keyId },
      data: { rateLimitPerMinute: perMinute },
    });
    const data = {
      key_id: keyId,
      tenant_id: key.tenantId,
      requests_per_minute: perMinute,
      previous: key.rateLimitPerMinute,
      changed_by: changedBy,
    };
    await appendWorkspaceEvent(tx, { teamId, type: "api_key.rate_limit_changed", data });
    if (key.tenantId !== null) {
      await appendEvent({
        db: tx,
        tenantId: key.tenantId,
        type: "api_key.rate_limit_changed",
        resourceId: keyId,
        data,
      });
    }
    return updated;
  });
}
