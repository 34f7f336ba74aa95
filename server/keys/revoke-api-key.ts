import type { DbTx } from "../db";
import { db as defaultDb } from "../db";

export type RevokeApiKeyOptions = { keyId: string; tenantId?: number; db?: DbTx };

/** Revokes a key; it is refused from its next request. Returns false when no such key exists. */
export async function revokeApiKey({ keyId, tenantId, db = defaultDb() }: RevokeApiKeyOptions) {
  const key = await db.apiKey.findFirst({
    where: { id: keyId, ...(tenantId === undefined ? {} : { tenantId }) },
  });
  if (!key) return null;
  if (key.revokedAt) return key;
  return db.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
}
