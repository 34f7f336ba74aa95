import { z } from "zod";
import type { Db, DbTx } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { API_VERSIONS, type ApiVersion } from "../versions";
import { scopesOf, TEAM_PERMISSIONS } from "../teams/roles";
import { projectTeamAccess, requireTeam, teamAllows } from "../access/team-access";
import { ownedWorkspace } from "../teams/workspace";
import { createApiKey } from "./create-api-key";
import {
  anyScopeSchema,
  isProjectScope,
  isWorkspaceScope,
  type Scope,
  type WorkspaceScope,
} from "./scopes";
import { RATE_LIMIT_MAX, RATE_LIMIT_MIN, setApiKeyRateLimit } from "./set-rate-limit";

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  kind: z.enum(["project", "workspace"]),
  tenant_id: z.number().int().nullable(),
  team_id: z.number().int().nullable(),
  scopes: z.array(z.string()),
  api_version: z.string(),
  owner: z.object({ user_id: z.number().int(), email: z.string() }).nullable(),
  prefix: z.string(),
  rate_limit_per_minute: z.number().int(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export const createdApiKeySchema = apiKeySchema.extend({
  secret: z.string().describe("shown once, here; only a hash is kept"),
});

type KeyRow = {
  id: string;
  name: string | null;
  tenantId: number | null;
  teamId: number | null;
  scopes: string[];
  apiVersion: string;
  secretPrefix: string;
  rateLimitPerMinute: number;
  createdAt: Date;
  revokedAt: Date | null;
  owner: { id: number; email: string } | null;
};

const presentKey = (k: KeyRow): z.infer<typeof apiKeySchema> => ({
  id: k.id,
  name: k.name,
  kind: k.tenantId === null ? "workspace" : "project",
  tenant_id: k.tenantId,
  team_id: k.teamId,
  scopes: k.scopes,
  api_version: k.apiVersion,
  owner: k.owner ? { user_id: k.owner.id, email: k.owner.email } : null,
  prefix: k.secretPrefix,
  rate_limit_per_minute: k.rateLimitPerMinute,
  created_at: k.createdAt.toISOString(),
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

const withOwner = { owner: { select: { id: true, email: true } } } as const;

export const createKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    scopes: z.array(anyScopeSchema).min(1),
    api_version: z.enum(API_VERSIONS).optional(),
  })
  .strict();
export const createAnyKeyBody = createKeyBody
  .extend({ tenant_id: z.number().int().positive().optional() })
  .strict();

/** Project and workspace scopes never share a key. */
function splitScopes(scopes: string[]) {
  const project = scopes.filter(isProjectScope);
  const workspace = scopes.filter(isWorkspaceScope);
  if (project.length && workspace.length) {
    throw new DomainError(
      "scope_mix",
      "A key holds project scopes or workspace scopes, not both.",
      {
        project_scopes: project,
        workspace_scopes: workspace,
      },
    );
  }
  return { project: [...new Set(project)], workspace: [...new Set(workspace)] };
}

/** A project key for the tenant: owners, admins and developers, with scopes their role holds. */
export async function createProjectKey(
  db: Db,
  caller: UserCaller,
  tenantId: number,
  input: { name?: string; scopes: string[]; api_version?: ApiVersion },
) {
  const { project, workspace } = splitScopes(input.scopes);
  if (workspace.length) {
    throw new DomainError("scope_mix", "Project keys hold project scopes only.", {
      workspace_scopes: workspace,
    });
  }
  const access = await projectTeamAccess(db, caller, tenantId);
  requireTeam(access, "manageProjectKeys", "create project keys");
  const held = scopesOf(access.role, access.platformRole);
  const beyond = project.filter((s) => !held.has(s));
  if (beyond.length) {
    throw new DomainError(
      "insufficient_scope",
      `Your role does not hold ${beyond.join(", ")}, so a key you create cannot either.`,
      { missing_scopes: beyond },
    );
  }
  return issue(db, caller, {
    tenantId,
    teamId: null,
    scopes: project,
    name: input.name,
    api_version: input.api_version,
  });
}

/** A workspace key: the workspace (team) owner only. */
async function createWorkspaceKey(
  db: Db,
  caller: UserCaller,
  input: { name?: string; scopes: WorkspaceScope[]; api_version?: ApiVersion },
) {
  const owned = await ownedWorkspace(db, caller.userId);
  if (!owned) {
    throw new DomainError("forbidden", "Only a workspace owner can create workspace keys.", {});
  }
  return issue(db, caller, { tenantId: null, teamId: owned.teamId, ...input });
}

async function issue(
  db: Db,
  caller: UserCaller,
  k: {
    tenantId: number | null;
    teamId: number | null;
    scopes: (Scope | WorkspaceScope)[];
    name?: string;
    api_version?: ApiVersion;
  },
) {
  return db.$transaction(async (tx) => {
    const created = await createApiKey({
      tenantId: k.tenantId,
      teamId: k.teamId,
      scopes: k.scopes,
      ownerUserId: caller.userId,
      name: k.name ?? null,
      apiVersion: k.api_version,
      db: tx,
    });
    const row = await tx.apiKey.findUniqueOrThrow({
      where: { id: created.id },
      include: withOwner,
    });
    return { ...presentKey(row), secret: created.secret };
  });
}

/** `POST /v1/api-keys`: a project key (with `tenant_id`) or a workspace key. */
export async function createKey(
  db: Db,
  caller: UserCaller,
  input: z.infer<typeof createAnyKeyBody>,
) {
  const { project, workspace } = splitScopes(input.scopes);
  if (project.length) {
    if (input.tenant_id === undefined) {
      throw new DomainError("validation_failed", "Project scopes need the project's tenant_id.", {
        fields: [{ field: "tenant_id", message: "required for project scopes" }],
      });
    }
    return createProjectKey(db, caller, input.tenant_id, { ...input, scopes: project });
  }
  if (input.tenant_id !== undefined) {
    throw new DomainError("validation_failed", "Workspace keys belong to a team, not a project.", {
      fields: [{ field: "tenant_id", message: "not allowed with workspace scopes" }],
    });
  }
  const { tenant_id: _ignored, ...rest } = input;
  return createWorkspaceKey(db, caller, { ...rest, scopes: workspace });
}

/** The caller's own workspace keys and the project keys they made. */
export async function listMyKeys(db: DbTx, caller: UserCaller) {
  const keys = await db.apiKey.findMany({
    where: { ownerUserId: caller.userId },
    include: withOwner,
    orderBy: { createdAt: "desc" },
  });
  return keys.map(presentKey);
}

export async function listProjectKeys(db: DbTx, caller: UserCaller, tenantId: number) {
  requireTeam(
    await projectTeamAccess(db, caller, tenantId),
    "manageProjectKeys",
    "see the project's keys",
  );
  const keys = await db.apiKey.findMany({
    where: { tenantId },
    include: withOwner,
    orderBy: { createdAt: "desc" },
  });
  return keys.map(presentKey);
}

/** Revokes a key: the caller's own, or (with a tenant) any key of a project they manage. */
export async function revokeKey(db: Db, caller: UserCaller, keyId: string, tenantId?: number) {
  const key = await db.apiKey.findUnique({ where: { id: keyId }, include: withOwner });
  const notFound = new DomainError("not_found", "No such API key.", { resource: "api_key" });
  if (!key) throw notFound;
  if (tenantId !== undefined) {
    if (key.tenantId !== tenantId) throw notFound;
    requireTeam(
      await projectTeamAccess(db, caller, tenantId),
      "manageProjectKeys",
      "revoke the project's keys",
    );
  } else if (key.ownerUserId !== caller.userId) {
    throw notFound;
  }
  const revoked = key.revokedAt
    ? key
    : await db.apiKey.update({
        where: { id: keyId },
        data: { revokedAt: new Date() },
        include: withOwner,
      });
  return presentKey(revoked);
}

export const rateLimitBody = z
  .object({ requests_per_minute: z.number().int().min(RATE_LIMIT_MIN).max(RATE_LIMIT_MAX) })
  .strict();

/**
 * `PUT /v1/admin/api-keys/{key_id}/rate-limit`: an owner or admin of the key's team, or a platform
 * admin; anyone else 403 `forbidden`, an unknown key 404. Applied and recorded by
 * `setApiKeyRateLimit` (effective from the key's next request; logged as an event).
 */
export async function changeRateLimit(
  db: Db,
  caller: UserCaller,
  keyId: string,
  perMinute: number,
) {
  const changed = await setApiKeyRateLimit({
    keyId,
    perMinute,
    changedBy: caller.userId,
    db,
    authorize: async (teamId, tx) => {
      const member = await tx.teamMember.findUnique({
        where: { teamId_userId: { teamId, userId: caller.userId } },
      });
      const standing = { role: member?.role ?? null, platformRole: caller.platformRole };
      if (!teamAllows(standing, "manageTeam")) {
        throw new DomainError(
          "forbidden",
          "Only an owner or admin of the key's team, or a platform admin, can change its rate limit.",
          { key_id: keyId, required_roles: [...TEAM_PERMISSIONS.manageTeam, "platform-admin"] },
        );
      }
    },
  });
  if (!changed) throw new DomainError("not_found", "No such API key.", { resource: "api_key" });
  return presentKey(
    await db.apiKey.findUniqueOrThrow({ where: { id: keyId }, include: withOwner }),
  );
}
