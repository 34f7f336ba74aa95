import { z } from "zod";
import { db as defaultDb, type Db, type DbTx } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { LIVE_KEY_PREFIX } from "../access/key-prefix";
import { projectTeamAccess, requireTeam } from "../access/team-access";
import { newId, randomBase62, sha256Hex } from "../lib/ids";
import { resourceId } from "../lib/int4";
import { scopesOf } from "../access/roles";
import { ownedWorkspace } from "../teams/workspace";
import { API_VERSIONS, LATEST_VERSION, type ApiVersion } from "../versions";
import { apiKeyInclude, presentApiKey } from "./present-api-key";
import {
  anyScopeSchema,
  isProjectScope,
  isWorkspaceScope,
  type Scope,
  type WorkspaceScope,
} from "../access/scopes";

/**
 * Every key is made here. `createApiKey` is the one insert; people create keys through
 * `createKey`/`createProjectKey`, which check their role first, and the operator's command line
 * through `createOperatorKey`.
 */

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

/** Stores a new key and returns its row and its secret (shown once; only its hash is kept). */
async function insertApiKey({
  tenantId,
  teamId = null,
  scopes,
  ownerUserId,
  name = null,
  apiVersion = LATEST_VERSION,
  db = defaultDb(),
}: CreateApiKeyOptions) {
  const secret = `${LIVE_KEY_PREFIX}${randomBase62(48)}`;
  const row = await db.apiKey.create({
    data: {
      id: newId("key"),
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
    include: apiKeyInclude,
  });
  return { row, secret };
}

/**
 * Creates a project key (tenantId) or a workspace key (teamId only), unchecked: callers check who
 * may create which key.
 */
export async function createApiKey(options: CreateApiKeyOptions): Promise<CreatedApiKey> {
  const { row, secret } = await insertApiKey(options);
  return {
    id: row.id,
    secret,
    scopes: [...options.scopes],
    api_version: options.apiVersion ?? LATEST_VERSION,
  };
}

/**
 * The operator's key for a project (the command line). It acts for the team's first owner, whose
 * role is rechecked on every request like anyone's.
 */
export async function createOperatorKey({
  tenantId,
  scopes,
  db = defaultDb(),
}: {
  tenantId: number;
  scopes: Scope[];
  db?: DbTx;
}): Promise<CreatedApiKey> {
  const tenant = await db.tenant.findUnique({ where: { id: tenantId } });
  if (!tenant) throw new DomainError("not_found", `No tenant ${tenantId}.`, { resource: "tenant" });
  await requireProject(db, tenantId);
  const owner = await db.teamMember.findFirst({
    where: { teamId: tenant.teamId, role: "owner" },
    orderBy: { createdAt: "asc" },
  });
  if (!owner) {
    throw new DomainError("not_found", `Tenant ${tenantId}'s team has no owner.`, {
      resource: "owner",
    });
  }
  return createApiKey({ tenantId, ownerUserId: owner.userId, scopes, name: "admin-cli", db });
}

/**
 * A sandbox tenant takes workspace keys only (server/sandbox/README.md, Access): a project key
 * there would let a production-shaped key reach sandbox data, and its workspace keys already
 * reach it. 403 `forbidden`.
 */
async function requireProject(db: DbTx, tenantId: number) {
  const tenant = await db.tenant.findUnique({ where: { id: tenantId }, select: { kind: true } });
  if (tenant?.kind === "sandbox")
    throw new DomainError(
      "forbidden",
      "A sandbox tenant takes no project keys: create a workspace key (scopes sandbox:read, sandbox:write) with POST /v1/api-keys.",
      { tenant_id: tenantId },
    );
}

export const createKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    scopes: z.array(anyScopeSchema).min(1),
    api_version: z.enum(API_VERSIONS).optional(),
  })
  .strict();
export const createAnyKeyBody = createKeyBody.extend({ tenant_id: resourceId.optional() }).strict();

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
  await requireProject(db, tenantId);
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
  const { row, secret } = await insertApiKey({
    tenantId: k.tenantId,
    teamId: k.teamId,
    scopes: k.scopes,
    ownerUserId: caller.userId,
    name: k.name ?? null,
    apiVersion: k.api_version,
    db,
  });
  return { ...presentApiKey(row), secret };
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
