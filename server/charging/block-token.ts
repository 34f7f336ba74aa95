import { z } from "zod";
import type { DbTx } from "../db";
import { notFound } from "../errors";
import { armListSyncs } from "../local-lists/auto-sync";

export const tokenSchema = z.object({
  token: z.string(),
  /** what the service issued it for: `start_command`, `bill` */
  source: z.string(),
  expires_at: z.string().nullable(),
  blocked: z.boolean(),
  blocked_at: z.string().nullable(),
});
export type TokenResource = z.infer<typeof tokenSchema>;

/**
 * Blocks (or unblocks) a charging token the service issued for the tenant: while blocked, a charger
 * presenting it is answered `Blocked` (1.6 `idTagInfo`, 2.x `idTokenInfo`), whatever the tenant's
 * authorization mode (`authorizeToken`). A token the service never issued is not found: a block
 * row for it would make it a known token once unblocked. Blocking twice keeps the first time.
 * The tenant's stations that keep a local list get the change as a differential
 * (`armListSyncs`, server/local-lists/README.md).
 */
export async function setTokenBlocked({
  db,
  tenantId,
  token,
  blocked,
}: {
  db: DbTx;
  tenantId: number;
  token: string;
  blocked: boolean;
}): Promise<TokenResource> {
  const [row] = await db.$queryRaw<
    { token: string; source: string; expiresAt: Date | null; blockedAt: Date | null }[]
  >`
    UPDATE authorization_tokens
       SET blocked_at = CASE WHEN ${blocked} THEN COALESCE(blocked_at, ${new Date()}) END
     WHERE tenant_id = ${tenantId} AND token = ${token}
    RETURNING token, source, expires_at AS "expiresAt", blocked_at AS "blockedAt"`;
  if (!row) throw notFound("token");
  await armListSyncs(db, { tenantId });
  return {
    token: row.token,
    source: row.source,
    expires_at: row.expiresAt?.toISOString() ?? null,
    blocked: row.blockedAt !== null,
    blocked_at: row.blockedAt?.toISOString() ?? null,
  };
}
