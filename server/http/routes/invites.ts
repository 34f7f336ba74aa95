import { z } from "zod";
import {
  createInvite,
  createInviteBody,
  getInvite,
  inviteSchema,
  listInvites,
  revokeInvite,
} from "../../teams/invites";
import { listOf } from "../../lib/pagination";
import { idParam, inviteIdParam, teamParams } from "../params";
import { defineRoute } from "../route";

const tag = "Teams and projects";

/** A team's invitations, as its owners and admins see them (the invitee's side is in me.ts). */
export const inviteRoutes = [
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
    response: listOf(inviteSchema),
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
    params: z.object({ team_id: idParam, invite_id: inviteIdParam }),
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
    params: z.object({ team_id: idParam, invite_id: inviteIdParam }),
    status: 200,
    response: inviteSchema,
    errors: ["invite_closed", "forbidden"],
    handler: async ({ caller, rootDb, params }) => ({
      body: await revokeInvite(rootDb, caller, params.team_id, params.invite_id),
    }),
  }),
];
