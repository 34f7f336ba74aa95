import type { DbTx } from "../db";
import { armListSyncs } from "../local-lists/auto-sync";

/** A charger's answer to a token: 1.6 `idTagInfo.status`, 2.x `idTokenInfo.status`. */
export type AuthorizationStatus = "Accepted" | "Invalid" | "Expired" | "Blocked";

/**
 * Judges a charging token against the tenant's authorization setting:
 * - `accept_all` (default): every token is accepted (the operator's backend decides who charges),
 *   except one the service issued and the tenant blocked (`Blocked`);
 * - `known_tokens`: only tokens in `authorization_tokens` (issued by the service, e.g. for start
 *   commands, or registered for the tenant): a blocked one is `Blocked`, an expired one `Expired`,
 *   an unknown one `Invalid`.
 * A block wins over an expiry: it is the tenant's own word about the token.
 */
export async function authorizeToken(
  tx: DbTx,
  tenantId: number,
  token: string,
  now = new Date(),
): Promise<AuthorizationStatus> {
  const [row] = await tx.$queryRaw<
    { mode: string; found: boolean; expiresAt: Date | null; blockedAt: Date | null }[]
  >`
    SELECT t.authorization_mode AS mode, a.token IS NOT NULL AS found,
           a.expires_at AS "expiresAt", a.blocked_at AS "blockedAt"
      FROM tenants t
      LEFT JOIN authorization_tokens a ON a.tenant_id = t.id AND a.token = ${token}
     WHERE t.id = ${tenantId}`;
  if (!row) return "Invalid";
  if (row.blockedAt) return "Blocked";
  if (row.mode === "accept_all") return "Accepted";
  if (!row.found) return "Invalid";
  return !row.expiresAt || row.expiresAt > now ? "Accepted" : "Expired";
}

/**
 * Records a token the service hands to a charger (start command), valid for a day, and arms the
 * local list sync of the tenant's stations that keep a list (`server/local-lists/README.md`).
 */
export async function issueToken(tx: DbTx, tenantId: number, token: string, source: string) {
  const expiresAt = new Date(Date.now() + 24 * 3600_000);
  // A blocked token stays blocked when it is issued again: only the tenant unblocks it.
  await tx.authorizationToken.upsert({
    where: { tenantId_token: { tenantId, token } },
    update: { expiresAt },
    create: { tenantId, token, source, expiresAt },
  });
  await armListSyncs(tx, { tenantId });
}
