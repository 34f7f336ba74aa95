import type { DbTx } from "../db";

export type AuthorizationStatus = "Accepted" | "Invalid";

/**
 * Judges a charging token against the tenant's authorization setting:
 * - `accept_all` (default): every token is accepted (the operator's backend decides who charges);
 * - `known_tokens`: only tokens in `authorization_tokens` (issued by the service, e.g. for start
 *   commands, or registered for the tenant) that have not expired.
 * Tokens the service issued itself are valid under either setting.
 */
export async function authorizeToken(
  tx: DbTx,
  tenantId: number,
  token: string,
  now = new Date(),
): Promise<AuthorizationStatus> {
  const tenant = await tx.tenant.findUnique({
    where: { id: tenantId },
    select: { authorizationMode: true },
  });
  if (!tenant) return "Invalid";
  if (tenant.authorizationMode === "accept_all") return "Accepted";
  const known = await tx.authorizationToken.findUnique({
    where: { tenantId_token: { tenantId, token } },
  });
  return known && (!known.expiresAt || known.expiresAt > now) ? "Accepted" : "Invalid";
}

/** Records a token the service hands to a charger (start command), valid for a day. */
export async function issueToken(tx: DbTx, tenantId: number, token: string, source: string) {
  const expiresAt = new Date(Date.now() + 24 * 3600_000);
  await tx.authorizationToken.upsert({
    where: { tenantId_token: { tenantId, token } },
    update: { expiresAt },
    create: { tenantId, token, source, expiresAt },
  });
}
