import { z } from "zod";
import {
  changeMemberRole,
  contextSchema,
  createInvite,
  createInviteBody,
  createProject,
  ensureWorkspace,
  getInvite,
  getMember,
  getTenant,
  inviteSchema,
  listInvites,
  listMembers,
  listProjects,
  memberSchema,
  myContext,
  myInvites,
  myTeams,
  myTenant,
  name,
  removeMember,
  respondToInvite,
  revokeInvite,
  teamRoleSchema,
  teamSchema,
  tenantSchema,
  updateTenant,
  updateTenantBody,
} from "../../teams/teams";
import { DomainError } from "../../errors";
import type { TenantPrincipal } from "../../access/caller";
import { idParam, tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Teams and projects";
const teamParams = z.object({ team_id: idParam });
const memberParams = z.object({ team_id: idParam, user_id: idParam });
const inviteId = z.string().regex(/^inv_[A-Za-z0-9]{1,60}$/, "must be an invite ID");
const list = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/** Tenant routes that change the project itself take a person's token, not a key. */
export function requireUser(principal: TenantPrincipal) {
  if (principal.caller.kind !== "user") {
    throw new DomainError(
      "user_token_required",
      "This route needs a signed-in user's access token, not an API key.",
      {},
    );
  }
  return principal.caller;
}

export const teamRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/me",
    operationId: "getMe",
    summary: "The signed-in user's context",
    description:
      "The person (`platform_role` is `platform-admin`, `platform-support` or null), every team they belong to with their role and its projects, and how many pending, unexpired invitations are addressed to their email. Signed-in users only; API keys get 403 `user_token_required`.",
    tag,
    auth: "user",
    status: 200,
    response: contextSchema,
    handler: async ({ caller, db }) => ({ body: await myContext(db, caller) }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/me/teams",
    operationId: "listMyTeams",
    summary: "The signed-in user's teams",
    description:
      "Teams the caller is a member of, oldest first, with their role and each project with the scopes that role grants there. A platform role adds no team here.",
    tag,
    auth: "user",
    status: 200,
    response: list(teamSchema),
    handler: async ({ caller, db }) => ({ body: { data: await myTeams(db, caller) } }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/me/tenant",
    operationId: "assignMyTenant",
    summary: "The signed-in user's tenant assignment",
    description:
      "No body (a body: 422 `validation_failed`) and no tenant ID: answers the caller's default project, the oldest project of the oldest team they belong to, with their roles and scopes there. When that team has no project yet and the caller is its owner or admin (or a platform admin), it creates one named `Default project`; otherwise 403 `no_grant`. Without any team membership: 403 `no_grant` and nothing is created (signing in grants nothing; a platform role reaches every project but assigns none). Repeated and concurrent calls return the same tenant (serialized per team). API keys get 403 `user_token_required`.",
    tag,
    auth: "user",
    status: 200,
    response: z.object({
      tenant: tenantSchema,
      roles: z.array(z.string()),
      scopes: z.array(z.string()),
    }),
    errors: ["no_grant"],
    handler: async ({ caller, rootDb }) => ({ body: await myTenant(rootDb, caller) }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/workspace",
    operationId: "ensureWorkspace",
    summary: "Create (or read) the caller's workspace",
    description:
      "How a newly signed-up person gets their first team (signing in grants nothing). A workspace is a team the caller owns. When the caller owns no team, creates one named `name` with the caller as owner (`created: true`); when they already own one, answers the oldest team they own and renames nothing (`created: false`). Concurrent calls of one person create one team.",
    tag,
    auth: "user",
    body: z.object({ name }).strict(),
    status: 200,
    response: z.object({
      id: z.number().int(),
      name: z.string(),
      role: z.literal("owner"),
      created: z.boolean(),
    }),
    handler: async ({ caller, rootDb, body }) => ({
      body: await ensureWorkspace(rootDb, caller, body.name),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/me/invites",
    operationId: "listMyInvites",
    summary: "Pending invitations to the signed-in user's email",
    description:
      "Pending, unexpired invitations whose email matches the caller's (compared case-insensitively), newest first.",
    tag,
    auth: "user",
    status: 200,
    response: list(inviteSchema),
    handler: async ({ caller, db }) => ({ body: { data: await myInvites(db, caller) } }),
  }),
  ...(["accept", "decline"] as const).map((answer) =>
    defineRoute({
      method: "POST",
      path: `/v1/me/invites/{invite_id}/${answer}`,
      operationId: `${answer}Invite`,
      summary: `${answer === "accept" ? "Accept" : "Decline"} an invitation`,
      description:
        "Only invitations addressed to the caller's email are visible (another person's: 404, as for an unknown one). Accepting makes the caller a member with the invitation's role. A revoked or already answered invitation: 409 `invite_closed`; a pending one past `expires_at`: 410 `invite_expired`; accepting while already a member of the team: 409 `already_member`, and the invitation is closed (status `accepted`) with the member's role unchanged. Declining changes no membership.",
      tag,
      auth: "user",
      params: z.object({ invite_id: inviteId }),
      status: 200,
      response: inviteSchema,
      errors: ["invite_closed", "invite_expired", "already_member"],
      handler: async ({ caller, rootDb, params }) => ({
        body: await respondToInvite(rootDb, caller, params.invite_id, answer),
      }),
    }),
  ),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}",
    operationId: "getTenant",
    summary: "Read a project",
    description:
      "Any member of the project's team (any role), a platform role, or a key of this project.",
    tag,
    auth: "tenant",
    params: tenantParams,
    status: 200,
    response: tenantSchema,
    handler: async ({ params, db }) => ({ body: await getTenant(db, params.tenant_id) }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/v1/tenants/{tenant_id}",
    operationId: "updateTenant",
    summary: "Rename a project or set how chargers' Authorize requests are judged",
    description:
      "Signed-in owners and admins of the project's team, and platform admins (API keys: 403 `user_token_required`; other roles: 403 `forbidden`). Both fields optional. `name` is unique within the team (409 `project_name_taken`). `authorization_mode`: `accept_all` or `known_tokens`.",
    tag,
    auth: "tenant",
    params: tenantParams,
    body: updateTenantBody,
    status: 200,
    response: tenantSchema,
    errors: ["project_name_taken", "user_token_required", "forbidden"],
    handler: async ({ params, db, body, principal }) => ({
      body: await updateTenant(db, requireUser(principal), params.tenant_id, body),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/teams/{team_id}/projects",
    operationId: "listProjects",
    summary: "A team's projects",
    description:
      "Any member; platform staff read any team. Non-members get 404, as for an unknown team.",
    tag,
    auth: "user",
    params: teamParams,
    status: 200,
    response: list(tenantSchema),
    handler: async ({ caller, db, params }) => ({
      body: { data: await listProjects(db, caller, params.team_id) },
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/teams/{team_id}/projects",
    operationId: "createProject",
    summary: "Create a project",
    description:
      "Owners and admins of the team, and platform admins (other roles: 403 `forbidden`; non-members: 404 as for an unknown team). At most 20 projects per team (409 `project_limit`); names are unique within the team (409 `project_name_taken`).",
    tag,
    auth: "user",
    params: teamParams,
    body: z.object({ name }).strict(),
    status: 201,
    response: tenantSchema,
    errors: ["project_limit", "project_name_taken", "forbidden"],
    handler: async ({ caller, rootDb, params, body }) => ({
      body: await createProject(rootDb, caller, params.team_id, body.name),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/teams/{team_id}/members",
    operationId: "listMembers",
    summary: "A team's members",
    description:
      "Any member; platform staff read any team. Non-members get 404, as for an unknown team.",
    tag,
    auth: "user",
    params: teamParams,
    status: 200,
    response: list(memberSchema),
    handler: async ({ caller, db, params }) => ({
      body: { data: await listMembers(db, caller, params.team_id) },
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/teams/{team_id}/members/{user_id}",
    operationId: "getMember",
    summary: "A team member",
    description: "Any member; platform staff read any team. Unknown member: 404.",
    tag,
    auth: "user",
    params: memberParams,
    status: 200,
    response: memberSchema,
    handler: async ({ caller, db, params }) => ({
      body: await getMember(db, caller, params.team_id, params.user_id),
    }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/v1/teams/{team_id}/members/{user_id}",
    operationId: "changeMemberRole",
    summary: "Change a member's role",
    description:
      "Owners and admins, and platform admins (other roles: 403 `forbidden`). Only an owner (or a platform admin) grants or takes away `owner`. Demoting the team's last owner: 409 `last_owner`; the team's member rows are locked during the change, so two concurrent demotions cannot both pass.",
    tag,
    auth: "user",
    params: memberParams,
    body: z.object({ role: teamRoleSchema }).strict(),
    status: 200,
    response: memberSchema,
    errors: ["last_owner", "forbidden"],
    handler: async ({ caller, rootDb, params, body }) => ({
      body: await changeMemberRole(rootDb, caller, params.team_id, params.user_id, body.role),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/teams/{team_id}/members/{user_id}",
    operationId: "removeMember",
    summary: "Remove a member (or leave the team)",
    description:
      "Owners and admins (and platform admins) remove members; any member may remove themself. Only an owner (or a platform admin) removes another owner. Removing or leaving as the last owner: 409 `last_owner` (member rows locked, as for role changes). The removed person's project keys stop working at once.",
    tag,
    auth: "user",
    params: memberParams,
    status: 200,
    response: memberSchema,
    errors: ["last_owner", "forbidden"],
    handler: async ({ caller, rootDb, params }) => ({
      body: await removeMember(rootDb, caller, params.team_id, params.user_id),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/teams/{team_id}/invites",
    operationId: "listInvites",
    summary: "A team's invitations",
    description:
      "Owners and admins; platform staff read any team. `status=pending` (default: pending and unexpired) or `all`. `status` reads `expired` for a pending invitation past `expires_at`.",
    tag,
    auth: "user",
    params: teamParams,
    query: z.object({ status: z.enum(["pending", "all"]).default("pending") }),
    status: 200,
    response: list(inviteSchema),
    handler: async ({ caller, db, params, query }) => ({
      body: { data: await listInvites(db, caller, params.team_id, query.status) },
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/teams/{team_id}/invites",
    operationId: "createInvite",
    summary: "Invite someone by email",
    description:
      "Owners and admins, and platform admins; only an owner (or a platform admin) invites an owner (403 `forbidden`). The email is stored lower-cased; the invitation expires after 7 days. 409 `already_member` when that email already belongs to a member; 409 `invite_pending` while an unexpired pending invitation to that email exists (checked under a lock per team and email, so concurrent invitations create one).",
    tag,
    auth: "user",
    params: teamParams,
    body: createInviteBody,
    status: 201,
    response: inviteSchema,
    errors: ["already_member", "invite_pending", "forbidden"],
    handler: async ({ caller, rootDb, params, body }) => ({
      body: await createInvite(rootDb, caller, params.team_id, body),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/teams/{team_id}/invites/{invite_id}",
    operationId: "getInvite",
    summary: "A team's invitation",
    description:
      "Owners and admins; platform staff read any team. `status` reads `expired` for a pending one past its expiry.",
    tag,
    auth: "user",
    params: z.object({ team_id: idParam, invite_id: inviteId }),
    status: 200,
    response: inviteSchema,
    handler: async ({ caller, db, params }) => ({
      body: await getInvite(db, caller, params.team_id, params.invite_id),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/teams/{team_id}/invites/{invite_id}",
    operationId: "revokeInvite",
    summary: "Revoke an invitation",
    description:
      "Owners and admins (and platform admins). Sets `status` to `revoked`; it can no longer be accepted. An invitation already accepted, declined or revoked: 409 `invite_closed`.",
    tag,
    auth: "user",
    params: z.object({ team_id: idParam, invite_id: inviteId }),
    status: 200,
    response: inviteSchema,
    errors: ["invite_closed", "forbidden"],
    handler: async ({ caller, rootDb, params }) => ({
      body: await revokeInvite(rootDb, caller, params.team_id, params.invite_id),
    }),
  }),
];
