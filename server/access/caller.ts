import { DomainError } from "../errors";
import type { Scope, WorkspaceScope } from "./scopes";
import { isPlatformRole, type PlatformRole } from "./roles";
import { LATEST_VERSION, type ApiVersion } from "../versions";

/** Requests per minute a signed-in user's token may make against /v1. */
export const USER_RATE_LIMIT_PER_MINUTE = 600;

export type ApiKeyCaller = {
  kind: "api_key";
  /** who acted, as recorded on operations, idempotency records and rate-limit windows */
  actorId: string;
  keyId: string;
  /** project keys have a tenant; workspace keys only a team */
  tenantId: number | null;
  teamId: number;
  ownerUserId: number;
  /** the key's scopes as granted, narrowed to what its owner's current role still allows */
  scopes: Set<Scope>;
  grantedScopes: string[];
  apiVersion: ApiVersion;
  rateLimitPerMinute: number;
};

export type UserCaller = {
  kind: "user";
  actorId: string;
  userId: number;
  email: string;
  name: string | null;
  platformRole: PlatformRole | null;
  apiVersion: ApiVersion;
  rateLimitPerMinute: number;
};

export type Caller = ApiKeyCaller | UserCaller;

/** A caller resolved against the tenant in the path: what every tenant route's handler gets. */
export type TenantPrincipal = {
  kind: Caller["kind"];
  actorId: string;
  tenantId: number;
  teamId: number;
  scopes: Set<Scope>;
  /** the signed-in user's roles in this tenant's team (and platform role); [] for keys */
  roles: string[];
  apiVersion: ApiVersion;
  caller: Caller;
};

/**
 * A caller resolved to its workspace (a team) and that workspace's sandbox tenant: what every
 * `workspace` route's handler gets (server/sandbox/README.md). `scopes` are the project scopes
 * it holds on the sandbox tenant; `workspaceScopes` the sandbox scopes.
 */
export type WorkspacePrincipal = TenantPrincipal & {
  workspaceScopes: Set<WorkspaceScope>;
};

/** A signed-in user as a caller: for /v1 tokens and console sessions alike. */
export function userCaller(user: {
  id: number;
  email: string;
  name: string | null;
  platformRole: string | null;
}): UserCaller {
  return {
    kind: "user",
    actorId: `user_${user.id}`,
    userId: user.id,
    email: user.email,
    name: user.name,
    platformRole: isPlatformRole(user.platformRole) ? user.platformRole : null,
    apiVersion: LATEST_VERSION,
    rateLimitPerMinute: USER_RATE_LIMIT_PER_MINUTE,
  };
}

/** Tenant routes that change the project itself, or its keys, take a person's token, not a key. */
export function requireUser(principal: TenantPrincipal): UserCaller {
  if (principal.caller.kind !== "user") {
    throw new DomainError(
      "user_token_required",
      "This route needs a signed-in user's access token, not an API key.",
      {},
    );
  }
  return principal.caller;
}
