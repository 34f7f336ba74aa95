import { z } from "zod";
import type { Db, DbTx } from "../db";
import { isWorkspaceScope, WORKSPACE_SCOPES } from "../access/scopes";
import { brandingOf, brandingSchema } from "../branding/branding";
import { ensureSandbox } from "../sandbox/provision";
import { ownedWorkspace } from "./workspace";
import type { Caller, UserCaller } from "../access/caller";
import { myInvites } from "./my-invites";
import { scopesOf, type TeamRole } from "../access/roles";
import { teamRoleSchema } from "./team-schema";

export const teamSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  role: teamRoleSchema.nullable(),
  projects: z.array(
    z.object({ id: z.number().int(), name: z.string(), scopes: z.array(z.string()) }),
  ),
});

/** The teams the caller belongs to, oldest first, each project with the scopes their role grants. */
export async function myTeams(db: DbTx, caller: UserCaller): Promise<z.infer<typeof teamSchema>[]> {
  const memberships = await db.teamMember.findMany({
    where: { userId: caller.userId },
    // a team's sandbox tenant is no project (server/sandbox/README.md)
    include: {
      team: { include: { tenants: { where: { kind: "project" }, orderBy: { id: "asc" } } } },
    },
    orderBy: { teamId: "asc" },
  });
  return memberships.map((m) => ({
    id: m.teamId,
    name: m.team.name,
    role: m.role as TeamRole,
    projects: m.team.tenants.map((t) => ({
      id: t.id,
      name: t.name,
      scopes: [...scopesOf(m.role, caller.platformRole)],
    })),
  }));
}

export const contextSchema = z.object({
  kind: z.enum(["user", "api_key"]).describe("who is calling: a signed-in person or an API key"),
  user: z
    .object({
      id: z.number().int(),
      email: z.string(),
      name: z.string().nullable(),
      platform_role: z.string().nullable(),
    })
    .nullable()
    .describe("the signed-in person; null for an API key"),
  api_key: z
    .object({
      id: z.string(),
      name: z.string().nullable(),
      kind: z.enum(["project", "workspace"]),
      tenant_id: z.number().int().nullable().describe("a project key's project"),
      team_id: z.number().int(),
      scopes: z
        .array(z.string())
        .describe("as granted (a project key's narrowed to what its owner's role still allows)"),
      api_version: z.string(),
      rate_limit_per_minute: z.number().int(),
      owner_user_id: z.number().int(),
    })
    .nullable()
    .describe("the key; null for a signed-in person"),
  workspace: z
    .object({
      team_id: z.number().int(),
      name: z.string(),
      sandbox_tenant_id: z
        .number()
        .int()
        .describe(
          "the sandbox's tenant: its stations, bills, payments, events and webhooks are at /v1/tenants/{sandbox_tenant_id}/…",
        ),
      branding: brandingSchema,
    })
    .nullable()
    .describe(
      "the workspace the caller acts in on the sandbox routes: a workspace key's team, or the oldest team the person owns; null for a project key or a person who owns no team",
    ),
  scopes: z
    .array(z.string())
    .describe(
      "workspace scopes held (sandbox:read, sandbox:write); a project key's project scopes",
    ),
  teams: z.array(teamSchema).describe("a person's teams and projects; [] for a key"),
  pending_invites: z.number().int().describe("a person's pending invitations; 0 for a key"),
});
export type ContextResource = z.infer<typeof contextSchema>;

/**
 * `GET /v1/me`: who is calling. A person: themselves, their teams and projects (sandbox tenants
 * are no projects), their invitations, and their workspace (the oldest team they own) with its
 * sandbox, provisioned on first use; a key: itself and, for a workspace key, its workspace.
 */
export async function myContext(db: Db, caller: Caller): Promise<ContextResource> {
  if (caller.kind === "api_key") {
    const key = await db.apiKey.findUniqueOrThrow({
      where: { id: caller.keyId },
      select: { name: true },
    });
    const workspace = caller.tenantId === null ? await workspaceOf(db, caller.teamId) : null;
    return {
      kind: "api_key",
      user: null,
      api_key: {
        id: caller.keyId,
        name: key.name,
        kind: caller.tenantId === null ? "workspace" : "project",
        tenant_id: caller.tenantId,
        team_id: caller.teamId,
        scopes:
          caller.tenantId === null
            ? caller.grantedScopes.filter(isWorkspaceScope)
            : [...caller.scopes],
        api_version: caller.apiVersion,
        rate_limit_per_minute: caller.rateLimitPerMinute,
        owner_user_id: caller.ownerUserId,
      },
      workspace,
      scopes:
        caller.tenantId === null
          ? caller.grantedScopes.filter(isWorkspaceScope)
          : [...caller.scopes],
      teams: [],
      pending_invites: 0,
    };
  }
  return userContext(db, caller);
}

/** `myContext` of a signed-in person (the console's `me`): `user` is always there. */
export async function userContext(
  db: Db,
  caller: UserCaller,
): Promise<ContextResource & { kind: "user"; user: NonNullable<ContextResource["user"]> }> {
  const [teams, invites, owned] = await Promise.all([
    myTeams(db, caller),
    myInvites(db, caller),
    ownedWorkspace(db, caller.userId),
  ]);
  return {
    kind: "user",
    user: {
      id: caller.userId,
      email: caller.email,
      name: caller.name,
      platform_role: caller.platformRole,
    },
    api_key: null,
    workspace: owned ? await workspaceOf(db, owned.teamId) : null,
    scopes: owned ? [...WORKSPACE_SCOPES] : [],
    teams,
    pending_invites: invites.length,
  };
}

async function workspaceOf(db: Db, teamId: number) {
  const sandboxTenantId = await ensureSandbox(db, teamId);
  const branding = await brandingOf(db, teamId);
  const team = await db.team.findUniqueOrThrow({ where: { id: teamId }, select: { name: true } });
  return { team_id: teamId, name: team.name, sandbox_tenant_id: sandboxTenantId, branding };
}
