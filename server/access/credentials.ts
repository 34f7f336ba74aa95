import type pg from "pg";
import { asyncCommitPool, requireDatabaseUrl, type Db } from "../db";
import { DomainError } from "../errors";
import { sha256Hex } from "../lib/ids";
import { LIVE_KEY_PREFIX } from "./key-prefix";
import { effectiveScopes } from "./scopes";
import { isPlatformRole, roleAllows, scopesOf } from "./roles";
import { TokenError, verifyAccessToken } from "../auth/access-tokens";
import { env } from "../env";
import {
  BUMP_WINDOW_SQL,
  countAttempt,
  limitState,
  windowStart,
  type RateLimitState,
} from "../lib/rate-limit";
import { isApiVersion, LATEST_VERSION } from "../versions";
import { userCaller, type ApiKeyCaller, type Caller, type UserCaller } from "./caller";
import { keyCache, type KeyCache } from "./key-cache";
import { onShutdown } from "../lib/shutdown";
import { WindowCounts } from "../lib/window-counts";

export const unauthenticated = (message: string) => new DomainError("unauthenticated", message);

/** The caller, and this request counted against the caller's per-minute limit. */
export type Authenticated = { caller: Caller; rateLimit: RateLimitState };

/**
 * Resolves a credential, an API key (`cpk_live_…`) or a signed-in user's access token from the
 * configured identity provider, and counts the request against its caller's rate limit.
 * Rechecked on every request: a revoked key, a deleted tenant, a suspended or removed owner, or an
 * owner whose role no longer allows a scope is refused (or narrowed) on any request that starts
 * after the change committed. An API key's verification is kept in memory between requests only
 * while the process hears of every such change (server/access/key-cache.ts), and its rate-limit
 * window is counted in memory between flushes (server/lib/window-counts.ts).
 */
export async function authenticateRequest(
  db: Db,
  token: string,
  options: KeyOptions & { now?: number } = {},
): Promise<Authenticated> {
  const now = options.now ?? Date.now();
  if (token.length > 8192) throw unauthenticated("The credential is not valid.");
  if (token.startsWith(LIVE_KEY_PREFIX)) return authenticateKey(token, now, options);
  const caller = await authenticateUser(db, token);
  return {
    caller,
    rateLimit: await countAttempt(db, caller.actorId, caller.rateLimitPerMinute, now),
  };
}

/**
 * What stands for one web process's key handling; tests pass their own to play several processes.
 */
type KeyOptions = {
  /** the sessions the window bumps commit in (`asyncCommitPool`) */
  counters?: pg.Pool;
  cache?: KeyCache<ApiKeyCaller>;
  windows?: WindowCounts;
};

const globalForWindows = globalThis as unknown as { __windowCounts?: WindowCounts };

/** The process's rate-limit counts, written at its orderly stop too. On `globalThis`, as the cache. */
export function windowCounts(): WindowCounts {
  if (!globalForWindows.__windowCounts) {
    const counts = new WindowCounts(asyncCommitPool);
    onShutdown("rate-limit-counts", () => counts.stop());
    globalForWindows.__windowCounts = counts;
  }
  return globalForWindows.__windowCounts;
}

/**
 * An API key: from the process's cache with its window counted in memory, when both know it (no
 * database round trip); otherwise `lookUpKey`, whose answer the cache and the counts keep.
 */
async function authenticateKey(
  token: string,
  now: number,
  options: KeyOptions,
): Promise<Authenticated> {
  if (token.length > 200) throw unauthenticated("The API key is not valid.");
  const hash = sha256Hex(token);
  const cache = options.cache ?? keyCache<ApiKeyCaller>(requireDatabaseUrl);
  const windows = options.windows ?? windowCounts();
  const cached = cache.get(hash, now);
  if (cached) {
    // alone on the database, this process's count of an idle key is still the database's
    const count = windows.count(cached.keyId, now, cache.alone());
    if (count !== null)
      return { caller: cached, rateLimit: limitState(count, cached.rateLimitPerMinute, now) };
  }
  const ticket = cache.begin();
  // apart from the counts' flushes, so the database's count and ours add up (window-counts.ts)
  return windows.apartFromFlushes(async () => {
    const { caller, count } = await lookUpKey(hash, now, options.counters ?? asyncCommitPool());
    cache.set(hash, caller, ticket, now);
    const counted = windows.noteCounted(caller.keyId, now, count);
    return { caller, rateLimit: limitState(counted, caller.rateLimitPerMinute, now) };
  });
}

/**
 * The key, its tenant, its owner's suspension and role, and the bump of its rate-limit window in
 * one statement: one round trip. The bump
 * skips a key the statement can already tell is unusable (revoked, tenant or owner gone, owner
 * suspended). It commits asynchronously (`asyncCommitPool`): a PostgreSQL crash may forget the
 * last fraction of a second of counts, which can only let a client past its limit by that many
 * requests once per crash, never refuse one; it spares every read a WAL flush.
 */
async function lookUpKey(
  hash: string,
  now: number,
  counters: pg.Pool,
): Promise<{ caller: ApiKeyCaller; count: number }> {
  const { rows } = await counters.query<{
    id: string;
    tenant_id: number | null;
    team_id: number | null;
    owner_user_id: number | null;
    scopes: string[];
    api_version: string;
    rate_limit_per_minute: number;
    revoked_at: Date | null;
    owner_suspended: boolean | null;
    owner_platform_role: string | null;
    owner_role: string | null;
    window_count: number | null;
  }>({
    // prepared once per connection: parsed and planned once, not on every request
    name: "api-key-request",
    text: `WITH key AS (
       SELECT k.id, k.tenant_id, COALESCE(t.team_id, k.team_id) AS team_id, k.owner_user_id,
              k.scopes, k.api_version, k.rate_limit_per_minute, k.revoked_at,
              (u.suspended_at IS NOT NULL) AS owner_suspended,
              u.id IS NOT NULL AS owner_exists,
              u.platform_role AS owner_platform_role,
              m.role AS owner_role
         FROM api_keys k
         LEFT JOIN tenants t ON t.id = k.tenant_id
         LEFT JOIN users u ON u.id = k.owner_user_id
         LEFT JOIN team_members m ON m.user_id = k.owner_user_id
                                 AND m.team_id = COALESCE(t.team_id, k.team_id)
        WHERE k.secret_hash = $1),
     bump AS (
       INSERT INTO rate_limit_windows AS w (api_key_id, window_start, count)
       SELECT id, $2, 1 FROM key
        WHERE revoked_at IS NULL AND team_id IS NOT NULL AND owner_exists AND NOT owner_suspended
       ${BUMP_WINDOW_SQL}
       RETURNING count)
     SELECT key.*, (SELECT count FROM bump) AS window_count FROM key`,
    values: [hash, windowStart(now)],
  });
  const key = rows[0];
  if (!key || key.revoked_at || key.team_id === null) {
    throw unauthenticated("The API key is not valid or has been revoked.");
  }
  if (key.owner_user_id === null || key.owner_suspended === null) {
    throw unauthenticated("The owner of this API key no longer exists.");
  }
  if (key.owner_suspended) throw unauthenticated("The owner of this API key is suspended.");
  const platformRole = isPlatformRole(key.owner_platform_role) ? key.owner_platform_role : null;
  let scopes = effectiveScopes(key.scopes);
  if (key.tenant_id !== null) {
    // A project key keeps only what its owner's current grant still allows.
    const allowed = scopesOf(key.owner_role, platformRole);
    if (allowed.size === 0) {
      throw unauthenticated("The owner of this API key no longer has access to its project.");
    }
    scopes = new Set([...scopes].filter((s) => allowed.has(s)));
  } else if (!roleAllows(key.owner_role, "manageWorkspaceKeys")) {
    throw unauthenticated("The owner of this workspace key is no longer its workspace's owner.");
  }
  const caller: ApiKeyCaller = {
    kind: "api_key",
    actorId: key.id,
    keyId: key.id,
    tenantId: key.tenant_id,
    teamId: key.team_id,
    ownerUserId: key.owner_user_id,
    scopes,
    grantedScopes: key.scopes,
    apiVersion: isApiVersion(key.api_version) ? key.api_version : LATEST_VERSION,
    rateLimitPerMinute: key.rate_limit_per_minute,
  };
  return { caller, count: key.window_count ?? 1 };
}

async function authenticateUser(db: Db, token: string): Promise<UserCaller> {
  let verified;
  try {
    verified = await verifyAccessToken(db, token);
  } catch (error) {
    if (error instanceof TokenError) {
      throw unauthenticated(
        error.message === "token expired"
          ? "The access token has expired; sign in again."
          : "The credential is not a valid API key or access token.",
      );
    }
    throw error;
  }
  // The built-in provider's subject is the user id; an external provider's is its own.
  const builtin = env().oidc.kind === "builtin";
  if (builtin && !/^\d{1,10}$/.test(verified.subject)) {
    throw unauthenticated("The access token names no account.");
  }
  const user = await db.user.findFirst({
    where: builtin
      ? { id: Number(verified.subject), oidcIssuer: null }
      : { oidcIssuer: verified.issuer, oidcSubject: verified.subject },
  });
  if (!user) throw unauthenticated("No account for this access token; sign in to the console.");
  if (user.suspendedAt) throw unauthenticated("This account is suspended.");
  return userCaller(user);
}
