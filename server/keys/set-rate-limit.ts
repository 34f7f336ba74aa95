import { z } from "zod";
import { db as defaultDb, type Db, type DbTx } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { teamAllows } from "../access/team-access";
import { appendEvent } from "../events/append-event";
import { ensureSandboxTenant } from "../sandbox/provision";
import type { ApiKey } from "../generated/prisma/client";
import { TEAM_PERMISSIONS } from "../access/roles";
import { apiKeyInclude, presentApiKey } from "./present-api-key";

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
 * as `api_key.rate_limit_changed` in the key's workspace event log (its team's sandbox tenant's
 * log, server/sandbox/workspace-events.ts) and, for a project key, in that project's event log
 * too; webhooks of either carry it. Null for an unknown key.
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
    const type = "api_key.rate_limit_changed";
    // The workspace log is the team's sandbox tenant's (server/sandbox/workspace-events.ts),
    // found or made before any event counter is taken; then the project's counter and the
    // sandbox's, in that order (only this change takes two).
    const workspaceTenantId = await ensureSandboxTenant(tx, teamId);
    if (key.tenantId !== null)
      await appendEvent({ db: tx, tenantId: key.tenantId, type, resourceId: keyId, data });
    await appendEvent({ db: tx, tenantId: workspaceTenantId, type, resourceId: keyId, data });
    return updated;
  });
}

export const rateLimitBody = z
  .object({ requests_per_minute: z.number().int().min(RATE_LIMIT_MIN).max(RATE_LIMIT_MAX) })
  .strict();

/**
 * `PUT /v1/admin/api-keys/{key_id}/rate-limit`: an owner or admin of the key's team, or a platform
 * admin; anyone else 403 `forbidden`, an unknown key 404. Applied and recorded by
 * `setApiKeyRateLimit` (effective from the key's next request; logged as an event).
 */
export async function changeRateLimit(
  db: Db,
  caller: UserCaller,
  keyId: string,
  perMinute: number,
) {
  const changed = await setApiKeyRateLimit({
    keyId,
    perMinute,
    changedBy: caller.userId,
    db,
    authorize: async (teamId, tx) => {
      const member = await tx.teamMember.findUnique({
        where: { teamId_userId: { teamId, userId: caller.userId } },
      });
      const standing = { role: member?.role ?? null, platformRole: caller.platformRole };
      if (!teamAllows(standing, "manageTeam")) {
        throw new DomainError(
          "forbidden",
          "Only an owner or admin of the key's team, or a platform admin, can change its rate limit.",
          { key_id: keyId, required_roles: [...TEAM_PERMISSIONS.manageTeam, "platform-admin"] },
        );
      }
    },
  });
  if (!changed) throw new DomainError("not_found", "No such API key.", { resource: "api_key" });
  return presentApiKey(
    await db.apiKey.findUniqueOrThrow({ where: { id: keyId }, include: apiKeyInclude }),
  );
}
