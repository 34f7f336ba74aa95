import { z } from "zod";
import {
  createAnyKeyBody,
  createKey,
  createKeyBody,
  createProjectKey,
} from "../../keys/create-api-key";
import { listMyKeys, listProjectKeys } from "../../keys/list-api-keys";
import { apiKeySchema, createdApiKeySchema, presentApiKey } from "../../keys/present-api-key";
import { revokeApiKey } from "../../keys/revoke-api-key";
import { changeRateLimit, rateLimitBody } from "../../keys/set-rate-limit";
import { listOf } from "../../lib/pagination";
import { requireUser } from "../../access/caller";
import { tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Access and keys";
const keyId = z.string().regex(/^key_[A-Za-z0-9]{1,60}$/, "must be an API key ID");
const list = listOf(apiKeySchema);

export const apiKeyRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/api-keys",
    operationId: "listMyApiKeys",
    summary: "The caller's workspace keys and the project keys they made",
    description:
      "Keys whose owner is the caller, revoked ones included, newest first, each with `owner` and `api_version`. Never the secret or its hash.",
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
      "`scopes`: a non-empty list of known scopes. Project scopes need `tenant_id` (422 `validation_failed` without it) and follow the rules of `POST /v1/tenants/{tenant_id}/api-keys`: the caller must be an owner, admin or developer of the project's team and their role must hold every scope asked for (else 403 `insufficient_scope`). Workspace scopes (`sandbox:read`, `sandbox:write`) make a workspace key of the oldest team the caller owns (403 `forbidden` if they own none; `tenant_id` not allowed); only a workspace owner manages workspace keys. Mixing project and workspace scopes: 422 `scope_mix`. `api_version` pins the key to a supported version (default: latest). The caller owns the key. The secret is in this answer only.",
    tag,
    auth: "user",
    body: createAnyKeyBody,
    status: 201,
    response: createdApiKeySchema,
    errors: ["scope_mix", "insufficient_scope", "forbidden"],
    handler: async ({ caller, rootDb, body }) => ({ body: await createKey(rootDb, caller, body) }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/api-keys/{key_id}",
    operationId: "revokeMyApiKey",
    summary: "Revoke one of the caller's keys",
    description:
      "Only keys the caller owns (another's: 404, as for an unknown key). Refused from its next request (401). Revoking twice answers the same record.",
    tag,
    auth: "user",
    params: z.object({ key_id: keyId }),
    status: 200,
    response: apiKeySchema,
    handler: async ({ caller, rootDb, params }) => ({
      body: presentApiKey(await revokeApiKey({ keyId: params.key_id, caller, db: rootDb })),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/api-keys",
    operationId: "listProjectApiKeys",
    summary: "A project's keys",
    description:
      "Signed-in owners, admins and developers of the project's team, and platform admins: every key of the project, whoever made it, revoked ones included. API keys: 403 `user_token_required`; other roles: 403 `forbidden`.",
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
      "Signed-in owners, admins and developers of the project's team, and platform admins (API keys: 403 `user_token_required`; other roles: 403 `forbidden`). `scopes` must be project scopes (workspace scopes: 422 `scope_mix`) and each must be one the creator's own role grants (else 403 `insufficient_scope`). The creator owns the key; it is narrowed to what its owner's role still allows on every request. The secret is in this answer only.",
    tag,
    auth: "tenant",
    params: tenantParams,
    body: createKeyBody,
    status: 201,
    response: createdApiKeySchema,
    errors: ["scope_mix", "insufficient_scope", "user_token_required", "forbidden"],
    handler: async ({ principal, rootDb, params, body }) => ({
      body: await createProjectKey(rootDb, requireUser(principal), params.tenant_id, body),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tenants/{tenant_id}/api-keys/{key_id}",
    operationId: "revokeProjectApiKey",
    summary: "Revoke a project key",
    description:
      "Signed-in owners, admins and developers of the project's team, and platform admins; any key of this project (a key of another project: 404). Refused from its next request. Revoking twice answers the same record.",
    tag,
    auth: "tenant",
    params: tenantParams.extend({ key_id: keyId }),
    status: 200,
    response: apiKeySchema,
    errors: ["user_token_required", "forbidden"],
    handler: async ({ principal, rootDb, params }) => ({
      body: presentApiKey(
        await revokeApiKey({
          keyId: params.key_id,
          tenantId: params.tenant_id,
          caller: requireUser(principal),
          db: rootDb,
        }),
      ),
    }),
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/admin/api-keys/{key_id}/rate-limit",
    operationId: "setApiKeyRateLimit",
    summary: "Set a key's rate limit (requests per minute, 1 to 1200)",
    description:
      "`requests_per_minute`: integer 1 to 1200. Signed-in owners and admins of the key's team, or platform admins; anyone else 403 `forbidden`; an unknown key 404. Applies from the key's next request, within the current minute: the limiter reads the key's limit on each request and counts against the minute already under way. Recorded as `api_key.rate_limit_changed` (data: `key_id`, `tenant_id` (null for a workspace key), `requests_per_minute`, `previous`, `changed_by` user ID, null when changed from the operator's command line) in the key's workspace event log (`GET /v1/events`) and, for a project key, in the project's event log too, where webhooks can carry it.",
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
