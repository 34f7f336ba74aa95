import { z } from "zod";
import {
  apiKeySchema,
  changeRateLimit,
  createAnyKeyBody,
  createdApiKeySchema,
  createKey,
  createKeyBody,
  createProjectKey,
  listMyKeys,
  listProjectKeys,
  rateLimitBody,
  revokeKey,
} from "../../keys/manage-keys";
import { tenantParams } from "../params";
import { defineRoute } from "../route";
import { requireUser } from "./teams";

const tag = "Access and keys";
const keyId = z.string().regex(/^key_[A-Za-z0-9]{1,60}$/, "must be an API key ID");
const list = z.object({ data: z.array(apiKeySchema) });

export const apiKeyRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/api-keys",
    operationId: "listMyApiKeys",
    summary: "The caller's workspace keys and the project keys they made",
    tag,
    auth: "user",
    status: 200,
    response: list,
    handler: async ({ caller, db }) => ({ body: { data: await listMyKeys(db, caller) } }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/api-keys",
    operationId: "createApiKey",
    summary: "Create an API key (secret shown once)",
    description:
      "Project scopes need `tenant_id` and the caller's role in that project's team must be owner, admin or developer and hold every scope asked for (else 403 `insufficient_scope`). Workspace scopes (`sandbox:read`, `sandbox:write`) make a workspace key of the team the caller owns. Mixing both: 422 `scope_mix`. `api_version` pins the key to a version. The secret is in this answer only.",
    tag,
    auth: "user",
    body: createAnyKeyBody,
    status: 201,
    response: createdApiKeySchema,
    errors: ["scope_mix", "forbidden"],
    handler: async ({ caller, rootDb, body }) => ({ body: await createKey(rootDb, caller, body) }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/api-keys/{key_id}",
    operationId: "revokeMyApiKey",
    summary: "Revoke one of the caller's keys",
    description: "Refused from its next request. Revoking twice answers the same record.",
    tag,
    auth: "user",
    params: z.object({ key_id: keyId }),
    status: 200,
    response: apiKeySchema,
    handler: async ({ caller, rootDb, params }) => ({
      body: await revokeKey(rootDb, caller, params.key_id),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/api-keys",
    operationId: "listProjectApiKeys",
    summary: "A project's keys",
    description: "Signed-in owners, admins and developers of the project's team.",
    tag,
    auth: "tenant",
    params: tenantParams,
    status: 200,
    response: list,
    errors: ["user_token_required", "forbidden"],
    handler: async ({ principal, db, params }) => ({
      body: { data: await listProjectKeys(db, requireUser(principal), params.tenant_id) },
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/api-keys",
    operationId: "createProjectApiKey",
    summary: "Create a project key (secret shown once)",
    description:
      "Signed-in owners, admins and developers; each scope must be one the creator's role holds. Workspace scopes: 422 `scope_mix`.",
    tag,
    auth: "tenant",
    params: tenantParams,
    body: createKeyBody,
    status: 201,
    response: createdApiKeySchema,
    errors: ["scope_mix", "user_token_required", "forbidden"],
    handler: async ({ principal, rootDb, params, body }) => ({
      body: await createProjectKey(rootDb, requireUser(principal), params.tenant_id, body),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tenants/{tenant_id}/api-keys/{key_id}",
    operationId: "revokeProjectApiKey",
    summary: "Revoke a project key",
    tag,
    auth: "tenant",
    params: tenantParams.extend({ key_id: keyId }),
    status: 200,
    response: apiKeySchema,
    errors: ["user_token_required", "forbidden"],
    handler: async ({ principal, rootDb, params }) => ({
      body: await revokeKey(rootDb, requireUser(principal), params.key_id, params.tenant_id),
    }),
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/admin/api-keys/{key_id}/rate-limit",
    operationId: "setApiKeyRateLimit",
    summary: "Set a key's rate limit (requests per minute, 1 to 1200)",
    description:
      "Signed-in owners and admins of the key's team, or platform admins. Applies from the key's next request (the limiter reads the key on each one). Recorded as `api_key.rate_limit_changed` in the key's project event log (workspace keys have no project log).",
    tag,
    auth: "user",
    params: z.object({ key_id: keyId }),
    body: rateLimitBody,
    status: 200,
    response: apiKeySchema,
    errors: ["forbidden"],
    handler: async ({ caller, rootDb, params, body }) => ({
      body: await changeRateLimit(rootDb, caller, params.key_id, body.requests_per_minute),
    }),
  }),
];
