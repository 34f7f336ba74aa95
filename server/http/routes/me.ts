import { z } from "zod";
import { myContext, contextSchema, teamSchema, myTeams } from "../../teams/my-context";
import { myInvites, respondToInvite } from "../../teams/my-invites";
import { myTenant } from "../../teams/my-tenant";
import { inviteSchema } from "../../teams/invites";
import { tenantSchema } from "../../teams/projects";
import { nameSchema } from "../../teams/team-schema";
import { ensureWorkspace } from "../../teams/workspace";
import { listOf } from "../../lib/pagination";
import { inviteIdParam } from "../params";
import { defineRoute } from "../route";

const tag = "Teams and projects";

/** The signed-in person's own context, workspace, default project and invitations. */
export const meRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/me",
    operationId: "getMe",
    summary: "The caller's context: the person or the key, its workspace, teams and scopes",
    description:
      "`kind` says who calls. A signed-in person (`kind: user`): `user` (`platform_role` is `platform-admin`, `platform-support` or null), every team they belong to with their role and its projects (a team's sandbox tenant is no project and is not listed), how many pending, unexpired invitations are addressed to their email, and their `workspace` (the oldest team they own, null when they own none) with its `sandbox_tenant_id` and branding; `scopes` are the workspace scopes they hold there. An API key (`kind: api_key`): `api_key` (its id, name, kind, project or team, scopes, pinned version and rate limit), for a workspace key its `workspace`, and its `scopes`; `user` null, `teams` empty. The workspace's sandbox is provisioned on first use.",
    tag,
    auth: "caller",
    status: 200,
    response: contextSchema,
    handler: async ({ caller, rootDb }) => ({ body: await myContext(rootDb, caller) }),
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
    response: listOf(teamSchema),
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
    body: z.object({ name: nameSchema }).strict(),
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
    response: listOf(inviteSchema),
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
      params: z.object({ invite_id: inviteIdParam }),
      status: 200,
      response: inviteSchema,
      errors: ["invite_closed", "invite_expired", "already_member"],
      handler: async ({ caller, rootDb, params }) => ({
        body: await respondToInvite(rootDb, caller, params.invite_id, answer),
      }),
    }),
  ),
];
