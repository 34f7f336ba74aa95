import type { Db } from "../db";
import { ApiError } from "../errors";
import { sha256Hex } from "../lib/ids";
import { LIVE_KEY_PREFIX } from "../keys/create-api-key";
import { effectiveScopes, type Scope } from "../keys/scopes";
import { isApiVersion, LATEST_VERSION, type ApiVersion } from "./versions";

export type ApiKeyPrincipal = {
  kind: "api_key";
  keyId: string;
  tenantId: number;
  scopes: Set<Scope>;
  grantedScopes: string[];
  apiVersion: ApiVersion;
  rateLimitPerMinute: number;
};

export type Principal = ApiKeyPrincipal;

const unauthenticated = (message: string) =>
  new ApiError("unauthenticated", message, {}, { "WWW-Authenticate": 'Bearer realm="v1"' });

/** The bearer token of an Authorization header, or undefined. */
export function bearerToken(header: string | null): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Resolves `Authorization: Bearer <key>` to its key and tenant. Rechecked on every request (no
 * cache): a revoked key, a deleted tenant or a suspended owner is refused on the next request.
 */
export async function authenticate(db: Db, header: string | null): Promise<Principal> {
  if (!header) throw unauthenticated("Send an API key as `Authorization: Bearer <key>`.");
  const token = bearerToken(header);
  if (!token) throw unauthenticated("The Authorization header must be `Bearer <key>`.");
  if (!token.startsWith(LIVE_KEY_PREFIX) || token.length > 200) {
    throw unauthenticated("The API key is not valid.");
  }
  const rows = await db.$queryRaw<
    {
      id: string;
      tenant_id: number | null;
      scopes: string[];
      api_version: string;
      rate_limit_per_minute: number;
      revoked_at: Date | null;
      owner_suspended: boolean;
      tenant_exists: boolean;
    }[]
  >`SELECT k.id, k.tenant_id, k.scopes, k.api_version, k.rate_limit_per_minute, k.revoked_at,
           COALESCE(u.suspended_at IS NOT NULL, false) AS owner_suspended,
           (t.id IS NOT NULL) AS tenant_exists
      FROM api_keys k
      LEFT JOIN users u ON u.id = k.owner_user_id
      LEFT JOIN tenants t ON t.id = k.tenant_id
     WHERE k.secret_hash = ${sha256Hex(token)}`;
  const key = rows[0];
  if (!key || key.revoked_at || !key.tenant_exists || key.tenant_id === null) {
    throw unauthenticated("The API key is not valid or has been revoked.");
  }
  if (key.owner_suspended) throw unauthenticated("The owner of this API key is suspended.");
  return {
    kind: "api_key",
    keyId: key.id,
    tenantId: key.tenant_id,
    scopes: effectiveScopes(key.scopes),
    grantedScopes: key.scopes,
    apiVersion: isApiVersion(key.api_version) ? key.api_version : LATEST_VERSION,
    rateLimitPerMinute: key.rate_limit_per_minute,
  };
}
