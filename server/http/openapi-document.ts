import { z } from "zod";
import type { ErrorCode } from "../errors";
import { ERROR_STATUS, errorBodySchema } from "./errors";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "./body";
import { IDEMPOTENCY_TTL_HOURS } from "./idempotency";
import type { RouteDef } from "./route";
import { API_VERSIONS, LATEST_VERSION } from "../versions";

/** Error codes any route can answer with, by the kind of route. */
const COMMON_ERRORS: ErrorCode[] = [
  "route_not_found",
  "method_not_allowed",
  "invalid_api_version",
  "internal_error",
  "service_unavailable",
];
const AUTH_ERRORS: ErrorCode[] = [
  "unauthenticated",
  "insufficient_scope",
  "not_found",
  "rate_limited",
  "validation_failed",
];
const BODY_ERRORS: ErrorCode[] = [
  "invalid_json",
  "unsupported_media_type",
  "payload_too_large",
  "validation_failed",
];
const IDEMPOTENCY_ERRORS: ErrorCode[] = [
  "idempotency_key_missing",
  "idempotency_key_invalid",
  "idempotency_key_reused",
  "idempotency_key_in_progress",
];

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

function parameters(schema: z.ZodType | undefined, where: "path" | "query") {
  if (!schema) return [];
  const json = toSchema(schema, "input") as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    schema: property,
  }));
}

export function routeErrors(route: RouteDef): ErrorCode[] {
  const codes = new Set<ErrorCode>(COMMON_ERRORS);
  if (route.auth !== "public") AUTH_ERRORS.forEach((c) => codes.add(c));
  if (route.auth === "user") codes.add("user_token_required");
  // a tenant's own refusals of a caller (e.g. a key on a route for people)
  if (route.auth === "tenant") codes.add("forbidden");
  // a signed-in person who owns no workspace
  if (route.auth === "workspace") codes.add("no_grant");
  if (route.query || route.params) codes.add("validation_failed");
  if (route.method !== "GET") BODY_ERRORS.forEach((c) => codes.add(c));
  if (route.idempotency) IDEMPOTENCY_ERRORS.forEach((c) => codes.add(c));
  (route.errors ?? []).forEach((c) => codes.add(c));
  return [...codes];
}

/** The OpenAPI 3.1 document, generated from the same route table and zod schemas that serve requests. */
export function buildOpenApiDocument(routes: RouteDef[], serverUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const codes = routeErrors(route);
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of codes)
      byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
    const responses: Record<string, unknown> = {
      [String(route.status)]: {
        description: "Success",
        headers: { "Service-Version": { $ref: "#/components/headers/Service-Version" } },
        content: route.produces
          ? { [route.produces]: { schema: { type: "string", format: "binary" } } }
          : { "application/json": { schema: toSchema(route.response, "output") } },
      },
    };
    for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
      responses[String(status)] = {
        description: `Error: ${list.join(", ")}`,
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: Object.fromEntries(
              list.map((code) => [code, { value: { error: { code, message: "…", details: {} } } }]),
            ),
          },
        },
      };
    }
    const headerParams: unknown[] = [{ $ref: "#/components/parameters/ServiceVersion" }];
    if (route.idempotency) {
      headerParams.push({
        ...idempotencyParameter,
        required: route.idempotency === "required",
      });
    }
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      security:
        route.auth === "public"
          ? []
          : route.auth === "user"
            ? [{ userToken: [] }]
            : [{ apiKey: [] }, { userToken: [] }],
      "x-scopes": route.scopes ?? [],
      "x-error-codes": codes,
      parameters: [
        ...parameters(route.params, "path"),
        ...parameters(route.query, "query"),
        ...headerParams,
      ],
      responses,
      ...(route.deprecated ? { deprecated: true } : {}),
    };
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: { "application/json": { schema: toSchema(route.bodyDoc ?? route.body, "input") } },
      };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Charger Management, Billing and Payments API",
      version: LATEST_VERSION,
      description: [
        "Tenant-scoped API for charging-station operators.",
        `Supported versions (request header \`Service-Version\`): ${API_VERSIONS.join(", ")}. Absent means the key's pinned version.`,
        `Request bodies are limited to ${MAX_BODY_BYTES} bytes (413 \`payload_too_large\`) and to ${MAX_JSON_DEPTH} levels of nested arrays and objects (400 \`invalid_json\` with \`details.max_depth\`).`,
        "Bad input is a 4xx in the error shape, never a 5xx. No string anywhere in a request (body values and field names, path and query parameters) may contain U+0000: 422 `validation_failed` naming each such field in `details.fields`. A path that is not percent-encoded UTF-8 names no route: 404 `route_not_found`.",
        `Idempotency-Key: 8 to 128 printable characters; kept ${IDEMPOTENCY_TTL_HOURS} h per API key. Same key and request replays the first status and body (header \`Idempotent-Replayed: true\`); same key with another request: 422 \`idempotency_key_reused\`; a concurrent duplicate waits for the first and replays it. Error answers are not stored, so a retry after an error runs again.`,
        "Rate limits: per key per one-minute window (default 180; signed-in users' tokens 600). Every authenticated response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the window resets); 429 `rate_limited` adds `Retry-After`.",
        "Pagination: `after` (cursor, integer >= 0, default 0) and `limit` (1 to 100, default 50); responses carry `next_cursor` (null on the last page) and `has_more`.",
      ].join("\n\n"),
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "API key (`cpk_live_…`)" },
        userToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description:
            "A signed-in user's access token from the configured identity provider (the built-in one at `/oidc` by default). Tenant routes accept it with the scopes of the user's role in the tenant's team. A script gets one from the built-in provider with the device authorization grant (RFC 8628, client `cli`: `POST /oidc/device/auth`, then poll `POST /oidc/token`; README, Tokens for scripts).",
        },
      },
      parameters: {
        ServiceVersion: {
          name: "Service-Version",
          in: "header",
          required: false,
          schema: { type: "string", enum: [...API_VERSIONS] },
        },
      },
      headers: {
        "Service-Version": {
          schema: { type: "string" },
          description: "The version applied to this response.",
        },
      },
      schemas: {
        Error: toSchema(errorBodySchema, "output"),
      },
    },
  };
}

const idempotencyParameter = {
  name: "Idempotency-Key",
  in: "header",
  schema: { type: "string", minLength: 8, maxLength: 128, pattern: "^[\\x21-\\x7e]+$" },
};
