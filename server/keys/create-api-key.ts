import type { DbTx } from "../db";
import { db as defaultDb } from "../db";
import { newId, randomBase62, sha256Hex } from "../lib/ids";
import { LATEST_VERSION, type ApiVersion } from "../versions";
import type { Scope, WorkspaceScope } from "./scopes";

/** Every live key starts with this; secrets are 48 base62 characters after it. */
export const LIVE_KEY_PREFIX = "cpk_live_";
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 180;

export type CreatedApiKey = {
  id: string;
  secret: string;
  scopes: (Scope | WorkspaceScope)[];
  api_version: ApiVersion;
};

export type CreateApiKeyOptions = {
  /** a project key's tenant; null for a workspace key, which then names its team */
  tenantId: number | null;
  teamId?: number | null;
  scopes: readonly (Scope | WorkspaceScope)[];
  /** the person the key acts for: their current role is rechecked on every request */
  ownerUserId: number;
  name?: string | null;
  apiVersion?: ApiVersion;
  db?: DbTx;
};

/**
 * Creates a project key (tenantId) or a workspace key (teamId only). The secret is returned here
 * once and only its hash is stored. Callers check who may create which key.
 */
export async function createApiKey({
  tenantId,
  teamId = null,
  scopes,
  ownerUserId,
  name = null,
  apiVersion = LATEST_VERSION,
  db = defaultDb(),
}: CreateApiKeyOptions): Promise<CreatedApiKey> {
  const secret = `${LIVE_KEY_PREFIX}${randomBase62(48)}`;
  const id = newId("key");
  await db.apiKey.create({
    data: {
      id,
      tenantId,
      teamId: tenantId === null ? teamId : null,
      ownerUserId,
      name,
      secretHash: sha256Hex(secret),
      secretPrefix: secret.slice(0, LIVE_KEY_PREFIX.length + 4),
      scopes: [...scopes],
      apiVersion,
      rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE,
    },
  });
  return { id, secret, scopes: [...scopes], api_version: apiVersion };
}
