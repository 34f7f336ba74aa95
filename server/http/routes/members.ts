import { z } from "zod";
import {
  changeMemberRole,
  getMember,
  listMembers,
  memberSchema,
  removeMember,
} from "../../teams/members";
import { teamRoleSchema } from "../../teams/team-schema";
import { listOf } from "../../lib/pagination";
import { memberParams, teamParams } from "../params";
import { defineRoute } from "../route";

const tag = "Teams and projects";

export const memberRoutes = [
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
    response: listOf(memberSchema),
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
];
