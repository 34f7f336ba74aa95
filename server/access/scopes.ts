import { z } from "zod";

/** Project scopes of spec section 5, in the spec's order. */
export const PROJECT_SCOPES = [
  "stations:read",
  "stations:write",
  "stations:control",
  "stations:admin",
  "billing:read",
  "billing:write",
  "billing:refund",
  "settlement:write",
  "webhooks:write",
  "webhooks:read",
] as const;
export type Scope = (typeof PROJECT_SCOPES)[number];

export const scopeSchema = z.enum(PROJECT_SCOPES);

/**
 * Workspace scopes: for a team's own sandbox (spec section 4, "Workspaces and sandbox charging").
 * A key holds project scopes or workspace scopes, never both.
 */
export const WORKSPACE_SCOPES = ["sandbox:read", "sandbox:write"] as const;
export type WorkspaceScope = (typeof WORKSPACE_SCOPES)[number];
export const anyScopeSchema = z.enum([...PROJECT_SCOPES, ...WORKSPACE_SCOPES]);
/**
 * What a workspace scope grants on its workspace's sandbox tenant's ordinary tenant routes
 * (`/v1/tenants/{sandbox_tenant_id}/…`; server/sandbox/README.md, Access): `sandbox:read` the
 * project read scopes, `sandbox:write` the project write, control, billing, refund and webhook
 * scopes, never `stations:admin` or `settlement:write`. That is what lets an application written
 * against the sandbox move to a project by changing its key and ids.
 */
export const SANDBOX_GRANTS: Record<WorkspaceScope, readonly Scope[]> = {
  "sandbox:read": ["stations:read", "billing:read", "webhooks:read"],
  "sandbox:write": [
    "stations:write",
    "stations:control",
    "billing:write",
    "billing:refund",
    "webhooks:write",
    "webhooks:read",
  ],
};

/** The project scopes a set of workspace scopes grants on the sandbox tenant. */
export function sandboxProjectScopes(workspace: Iterable<WorkspaceScope>): Set<Scope> {
  const result = new Set<Scope>();
  for (const scope of workspace) for (const granted of SANDBOX_GRANTS[scope]) result.add(granted);
  return result;
}

/** A scope a route may require: a project scope (tenant routes) or a workspace scope. */
export type RouteScope = Scope | WorkspaceScope;

export const isProjectScope = (s: string): s is Scope =>
  (PROJECT_SCOPES as readonly string[]).includes(s);
export const isWorkspaceScope = (s: string): s is WorkspaceScope =>
  (WORKSPACE_SCOPES as readonly string[]).includes(s);

/** Scopes that include others: `webhooks:write` includes `webhooks:read`. */
const IMPLIED: Partial<Record<Scope, Scope[]>> = {
  "webhooks:write": ["webhooks:read"],
};

export function effectiveScopes(granted: readonly string[]): Set<Scope> {
  const result = new Set<Scope>();
  for (const scope of granted) {
    if (!(PROJECT_SCOPES as readonly string[]).includes(scope)) continue;
    result.add(scope as Scope);
    for (const implied of IMPLIED[scope as Scope] ?? []) result.add(implied);
  }
  return result;
}

export function missingScopes(granted: Set<Scope>, required: readonly Scope[]): Scope[] {
  return required.filter((scope) => !granted.has(scope));
}

/** Parses a comma-separated scope list (CLI). Throws with the unknown names. */
export function parseScopeList(value: string): Scope[] {
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(PROJECT_SCOPES as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`unknown scope(s): ${unknown.join(", ")}`);
  if (!names.length) throw new Error("no scopes given");
  return [...new Set(names)] as Scope[];
}
