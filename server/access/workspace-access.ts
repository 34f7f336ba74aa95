import type { DbTx } from "../db";
import { DomainError } from "../errors";
import type { Caller } from "./caller";
import {
  isWorkspaceScope,
  sandboxProjectScopes,
  type RouteScope,
  type Scope,
  type WorkspaceScope,
  WORKSPACE_SCOPES,
} from "./scopes";
import { scopesOf } from "./roles";

/** A caller's workspace and what it may do there, before its sandbox tenant is resolved. */
export type WorkspaceAccess = {
  teamId: number;
  workspaceScopes: Set<WorkspaceScope>;
  /** the project scopes held on the workspace's sandbox tenant */
  projectScopes: Set<Scope>;
  roles: string[];
};

/**
 * Whose workspace a caller acts in on the workspace routes (`/v1/sessions…`, `/v1/sandbox/…`,
 * `/v1/locations`, `/v1/branding`, `/v1/events`): a workspace key's team, with the sandbox scopes
 * it was granted; or the signed-in person's own workspace, the oldest team they own (what
 * `POST /v1/workspace` answers), with every sandbox scope and their role's project scopes. A
 * project key never acts in a workspace: 403 `insufficient_scope` naming the sandbox scopes (the
 * sandbox takes workspace keys). A person who owns no team: 403 `no_grant`.
 */
export async function resolveWorkspaceAccess(db: DbTx, caller: Caller): Promise<WorkspaceAccess> {
  if (caller.kind === "api_key") {
    if (caller.tenantId !== null)
      throw new DomainError(
        "insufficient_scope",
        "Sandbox routes take a workspace key (scopes sandbox:read, sandbox:write); a project key never reaches the sandbox.",
        { required_scopes: [...WORKSPACE_SCOPES], missing_scopes: [...WORKSPACE_SCOPES] },
      );
    const workspaceScopes = new Set(caller.grantedScopes.filter(isWorkspaceScope));
    return {
      teamId: caller.teamId,
      workspaceScopes,
      projectScopes: sandboxProjectScopes(workspaceScopes),
      roles: [],
    };
  }
  const owned = await db.teamMember.findFirst({
    where: { userId: caller.userId, role: "owner" },
    orderBy: { teamId: "asc" },
    select: { teamId: true, role: true },
  });
  if (!owned)
    throw new DomainError(
      "no_grant",
      "You own no workspace yet: create one with POST /v1/workspace.",
      {},
    );
  return {
    teamId: owned.teamId,
    workspaceScopes: new Set(WORKSPACE_SCOPES),
    projectScopes: scopesOf(owned.role, caller.platformRole),
    roles: [owned.role, caller.platformRole].filter((r): r is string => Boolean(r)),
  };
}

/** 403 `insufficient_scope` unless the workspace access holds every scope the route requires. */
export function requireWorkspaceScopes(
  access: Pick<WorkspaceAccess, "workspaceScopes" | "projectScopes">,
  required: readonly RouteScope[],
  byKey: boolean,
) {
  const missing = required.filter((s) =>
    isWorkspaceScope(s) ? !access.workspaceScopes.has(s) : !access.projectScopes.has(s),
  );
  if (!missing.length) return;
  throw new DomainError(
    "insufficient_scope",
    `${byKey ? "This API key lacks" : "Your role does not grant"} the scope ${missing.join(", ")}.`,
    { required_scopes: [...required], missing_scopes: missing },
  );
}
