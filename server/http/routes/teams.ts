import { z } from "zod";
import {
  changeMemberRole,
  contextSchema,
  createInvite,
  createInviteBody,
  createProject,
  ensureWorkspace,
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
import { ApiError } from "../../errors";
import type { TenantPrincipal } from "../auth";
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
    throw new ApiError(
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
    description: "The person, their teams with roles and projects, and how many invitations wait.",
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
      "No body and no tenant ID: answers the caller's default project (the oldest project of the oldest team they belong to), creating `Default project` only when that team has none and the caller is its owner or admin. Repeated and concurrent calls return the same tenant. Without any access grant: 403 `no_grant`, and nothing is created. API keys get 403 `user_token_required`.",
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
      "A workspace is a team its creator owns. Creates one named `name` when the caller owns no team; otherwise answers the oldest team they own, unchanged. One per person under concurrent calls.",
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
        "Only invitations addressed to the caller's email are visible (else 404). A revoked or answered one: 409 `invite_closed`; past its expiry: 410 `invite_expired`; accepting while already a member: 409 `already_member`.",
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
      "Signed-in owners and admins of the project's team (API keys: 403 `user_token_required`). `authorization_mode`: `accept_all` or `known_tokens`.",
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
    description: "Owners and admins; at most 20 projects per team (409 `project_limit`).",
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
    method: "PATCH",
    path: "/v1/teams/{team_id}/members/{user_id}",
    operationId: "changeMemberRole",
    summary: "Change a member's role",
    description:
      "Owners and admins; only owners grant or take away `owner`. The last owner cannot be demoted (409 `last_owner`).",
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
      "Owners and admins remove members; anyone may remove themself. The last owner cannot leave (409 `last_owner`). Their project keys stop working at once.",
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
    description: "Owners and admins. `status=pending` (default) or `all`.",
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
      "Owners and admins (only owners invite owners). Expires after 7 days. 409 `already_member` for a member's email, 409 `invite_pending` while an unexpired invitation to that email is open.",
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
    method: "DELETE",
    path: "/v1/teams/{team_id}/invites/{invite_id}",
    operationId: "revokeInvite",
    summary: "Revoke an invitation",
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
