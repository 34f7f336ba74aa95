import type { DbTx } from "../db";
import { db as defaultDb } from "../db";
import { newId, randomBase62, sha256Hex } from "../lib/ids";
import { LATEST_VERSION, type ApiVersion } from "../http/versions";
import type { Scope } from "./scopes";

/** Every live key starts with this; secrets are 48 base62 characters after it. */
export const LIVE_KEY_PREFIX = "cpk_live_";
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 180;

export type CreatedApiKey = {
  id: string;
  secret: string;
  scopes: Scope[];
  api_version: ApiVersion;
};

export type CreateApiKeyOptions = {
  tenantId: number;
  scopes: Scope[];
  ownerUserId?: number | null;
  name?: string | null;
  apiVersion?: ApiVersion;
  db?: DbTx;
};

/** Creates a project key. The secret is returned here once and only its hash is stored. */
export async function createApiKey({
  tenantId,
  scopes,
  ownerUserId = null,
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
      ownerUserId,
      name,
      secretHash: sha256Hex(secret),
      secretPrefix: secret.slice(0, LIVE_KEY_PREFIX.length + 4),
      scopes,
      apiVersion,
      rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE,
    },
  });
  return { id, secret, scopes, api_version: apiVersion };
}
