import type { Db } from "../db";
import { DomainError } from "../errors";
import { scopesOf } from "./roles";
import type { Caller, TenantPrincipal } from "./caller";
import { isWorkspaceScope, sandboxProjectScopes } from "./scopes";

export const noSuchTenant = () =>
  new DomainError("not_found", "No such tenant.", { resource: "tenant" });

/**
 * The caller's access to one tenant: a project key's own tenant; a workspace key's own
 * workspace's sandbox tenant, with the project scopes its sandbox scopes grant there
 * (`SANDBOX_GRANTS`); or a signed-in user's role in the tenant's team (or platform role). The same
 * 404 for a tenant that does not exist and one the caller has no grant to: a workspace key on any
 * other tenant (a production project included), a project key on any tenant but its own (a
 * sandbox tenant included: project keys are never made for one).
 */
export async function resolveTenantAccess(
  db: Db,
  caller: Caller,
  tenantId: number,
): Promise<TenantPrincipal> {
  if (caller.kind === "api_key") {
    if (caller.tenantId === null) {
      const [sandbox] = await db.$queryRaw<{ id: number }[]>`
        SELECT id FROM tenants WHERE id = ${tenantId} AND team_id = ${caller.teamId}
           AND kind = 'sandbox'`;
      if (!sandbox) throw noSuchTenant();
      return {
        kind: "api_key",
        actorId: caller.actorId,
        tenantId,
        teamId: caller.teamId,
        scopes: sandboxProjectScopes(caller.grantedScopes.filter(isWorkspaceScope)),
        roles: [],
        apiVersion: caller.apiVersion,
        caller,
      };
    }
    if (caller.tenantId !== tenantId) throw noSuchTenant();
    return {
      kind: "api_key",
      actorId: caller.actorId,
      tenantId,
      teamId: caller.teamId,
      scopes: caller.scopes,
      roles: [],
      apiVersion: caller.apiVersion,
      caller,
    };
  }
  const rows = await db.$queryRaw<{ team_id: number; role: string | null }[]>`
    SELECT t.team_id, m.role
      FROM tenants t
      LEFT JOIN team_members m ON m.team_id = t.team_id AND m.user_id = ${caller.userId}
     WHERE t.id = ${tenantId}`;
  const row = rows[0];
  if (!row || (!row.role && !caller.platformRole)) throw noSuchTenant();
  return {
    kind: "user",
    actorId: caller.actorId,
    tenantId,
    teamId: row.team_id,
    scopes: scopesOf(row.role, caller.platformRole),
    roles: [row.role, caller.platformRole].filter((r): r is string => Boolean(r)),
    apiVersion: caller.apiVersion,
    caller,
  };
}
