import { z } from "zod";
import { requireUser } from "../../access/caller";
import {
  createProject,
  getTenant,
  listProjects,
  tenantSchema,
  updateTenant,
  updateTenantBody,
} from "../../teams/projects";
import { nameSchema } from "../../teams/team-schema";
import { listOf } from "../../lib/pagination";
import { teamParams, tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Teams and projects";

export const projectRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}",
    operationId: "getTenant",
    summary: "Read a project",
    description:
      "Members of the project's team in a role that works in projects (owner, admin, developer, operator, viewer), a platform role, or a key of this project. The billing role reads only the team's billing profile, invoices and usage: 403 `forbidden`.",
    tag,
    auth: "tenant",
    params: tenantParams,
    status: 200,
    response: tenantSchema,
    errors: ["forbidden"],
    handler: async ({ db, principal }) => ({ body: await getTenant(db, principal) }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/v1/tenants/{tenant_id}",
    operationId: "updateTenant",
    summary: "Rename a project, or change its charger authorization and bill hold settings",
    description:
      "Signed-in owners and admins of the project's team, and platform admins (API keys: 403 `user_token_required`; other roles: 403 `forbidden`). Every field optional. `name` is unique within the team (409 `project_name_taken`). `authorization_mode`: `accept_all` or `known_tokens`. `default_hold_minor` (50 to 10000 US cents, default 5000): the hold a new bill gets when its creator names none. `hold_margin_minor` (default 100): a managed bill's charger is stopped once the session's running cost reaches its hold minus this margin; it must stay below `default_hold_minor` (422 `validation_failed`), and a `csms` bill's hold must exceed it. Changes apply to bills created afterwards; a bill's hold is fixed at creation, its margin is read while it charges.",
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
    response: listOf(tenantSchema),
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
      "Owners and admins of the team, and platform admins (other roles: 403 `forbidden`; non-members: 404 as for an unknown team). At most 20 projects per team (409 `project_limit`); with team billing on, 2 until a card or bank account is on file (409 `project_limit`, `details.billing_method_required`), and none while the team's billing is suspended (402 `billing_suspended`); names are unique within the team (409 `project_name_taken`).",
    tag,
    auth: "user",
    params: teamParams,
    body: z.object({ name: nameSchema }).strict(),
    status: 201,
    response: tenantSchema,
    errors: ["project_limit", "project_name_taken", "forbidden", "billing_suspended"],
    handler: async ({ caller, rootDb, params, body }) => ({
      body: await createProject(rootDb, caller, params.team_id, body.name),
    }),
  }),
];
