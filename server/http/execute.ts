import type { Caller, TenantPrincipal, WorkspacePrincipal } from "../access/caller";
import { resolveTenantAccess } from "../access/tenant-access";
import { requireWorkspaceScopes, resolveWorkspaceAccess } from "../access/workspace-access";
import { ensureSandbox } from "../sandbox/provision";
import { db as getDb, type Db, type DbTx } from "../db";
import { DomainError } from "../errors";
import { isProjectScope, missingScopes } from "../access/scopes";
import { log } from "../log";
import type { ApiVersion } from "../versions";
import { locateFields } from "./errors";
import { idempotencyRecorded, readIdempotencyKey, withIdempotency } from "./idempotency";
import type { RouteDef } from "./route";
import { illFormedTextIssues, parseOrThrow } from "./validation";
import { deprecationHeaders } from "./versions";

/**
 * One call of a route, as its transport received it. Values are still text and unparsed: the
 * core parses them, whoever sent them (a /v1 request, or the console's browser through tRPC).
 */
export type RouteCall = {
  /** who calls, already authenticated by the transport (undefined on public routes) */
  caller: Caller | undefined;
  version: ApiVersion;
  /** path values, as the path carried them (decoded) */
  params: Record<string, string>;
  query: Record<string, string>;
  /** the Idempotency-Key as sent, or null */
  idempotencyKey: string | null;
  /**
   * The body as sent (undefined when empty). Read only when the steps reach it, after params,
   * query and the key, so a request wrong in several ways gets the same first answer everywhere.
   */
  readBody: () => Promise<unknown>;
  /** the request's method and path; they key the idempotency record, and GET/HEAD take no body */
  method: string;
  path: string;
  /** headers the answer carries, error or not; steps add theirs as they pass */
  headers: Record<string, string>;
  requestId: string;
  /** told the tenant the call resolved to (a tenant route's, or a workspace's sandbox) */
  onTenant?: (tenantId: number) => void;
};

export type RouteOutcome = { status: number; body: unknown; replayed: boolean };

/**
 * Runs one route after its transport authenticated the caller: audience, path tenant (404, the
 * same answer whether or not it exists), scopes (403), params and query (422), Idempotency-Key
 * (400), body (422), the route's `prepare` (outside any transaction), then the handler, inside
 * the idempotency transaction where declared, then `afterCommit`. Whatever fails is thrown as a
 * `DomainError`, its fields located (path, query or body); an unexpected failure is logged and
 * becomes `internal_error` (or `service_unavailable` when the database does not answer).
 */
export async function executeRoute(def: RouteDef, call: RouteCall): Promise<RouteOutcome> {
  // what the call carried, so a service's field errors can say where each field came from
  const parts: { params: unknown; query: unknown; body: unknown } = {
    params: {},
    query: {},
    body: undefined,
  };
  try {
    return await run(def, call, parts);
  } catch (error) {
    const domain = asDomainError(error, call);
    throw locateFields(domain, parts);
  }
}

async function run(
  def: RouteDef,
  call: RouteCall,
  parts: { params: unknown; query: unknown; body: unknown },
): Promise<RouteOutcome> {
  const { caller, headers } = call;
  const rootDb = getDb();
  let principal: TenantPrincipal | WorkspacePrincipal | undefined;
  if (def.auth !== "public") {
    if (!caller) throw new Error(`route ${def.operationId} reached without a caller`);
    if (def.auth === "user" && caller.kind !== "user") {
      throw new DomainError(
        "user_token_required",
        "This route needs a signed-in user's access token, not an API key.",
        {},
      );
    }
    if (def.auth === "tenant") {
      const pathTenant = call.params.tenant_id ?? "";
      // Same answer for a tenant that exists and one that does not.
      if (!/^[1-9]\d{0,9}$/.test(pathTenant) || Number(pathTenant) > 2147483647) {
        throw new DomainError("not_found", "No such tenant.", { resource: "tenant" });
      }
      principal = await resolveTenantAccess(rootDb, caller, Number(pathTenant));
      call.onTenant?.(principal.tenantId);
      const missing = missingScopes(principal.scopes, (def.scopes ?? []).filter(isProjectScope));
      if (missing.length) {
        throw new DomainError(
          "insufficient_scope",
          `${caller.kind === "api_key" ? "This API key lacks" : "Your role does not grant"} the scope ${missing.join(", ")}.`,
          { required_scopes: def.scopes ?? [], missing_scopes: missing },
        );
      }
    }
    if (def.auth === "workspace") {
      const access = await resolveWorkspaceAccess(rootDb, caller);
      requireWorkspaceScopes(access, def.scopes ?? [], caller.kind === "api_key");
      principal = {
        kind: caller.kind,
        actorId: caller.actorId,
        tenantId: await ensureSandbox(rootDb, access.teamId),
        teamId: access.teamId,
        scopes: access.projectScopes,
        workspaceScopes: access.workspaceScopes,
        roles: access.roles,
        apiVersion: caller.apiVersion,
        caller,
      };
      call.onTenant?.(principal.tenantId);
    }
  }
  if (def.deprecated) Object.assign(headers, deprecationHeaders(def.deprecated));

  const params = def.params ? parseText(def.params, call.params, "path") : {};
  const query = def.query ? parseText(def.query, call.query, "query") : {};
  const idempotencyKey = def.idempotency
    ? readIdempotencyKey(call.idempotencyKey, def.idempotency === "required")
    : undefined;
  Object.assign(parts, { params, query });
  let body: unknown = undefined;
  if (call.method !== "GET" && call.method !== "HEAD") {
    const raw = await call.readBody();
    if (def.body) body = parseOrThrow(def.body, raw, "body");
    else if (raw !== undefined) {
      throw new DomainError("validation_failed", "This route takes no request body.", {
        fields: [{ field: "body", message: "must be empty", location: "body" }],
      });
    }
  }
  parts.body = body;
  for (const [field, deprecation] of Object.entries(def.deprecatedFields ?? {}))
    if (body && typeof body === "object" && (body as Record<string, unknown>)[field] !== undefined)
      Object.assign(headers, deprecationHeaders(deprecation));

  // The route's slow work without the database, before its transaction (unless a live record of
  // the key will answer: a replay needs none of it).
  const prepared =
    def.prepare &&
    !(
      idempotencyKey &&
      caller &&
      (await idempotencyRecorded(rootDb, caller.actorId, idempotencyKey))
    )
      ? await def.prepare({ body })
      : undefined;

  const handle = async (db: Db | DbTx) => {
    const result = await def.handler({
      prepared,
      params,
      query,
      body,
      version: call.version,
      db,
      rootDb,
      principal,
      caller,
    });
    Object.assign(headers, result.headers ?? {});
    return { status: result.status ?? def.status, body: result.body };
  };

  let outcome: RouteOutcome;
  if (idempotencyKey && caller) {
    const stored = await withIdempotency(
      rootDb,
      { apiKeyId: caller.actorId, key: idempotencyKey, method: call.method, path: call.path, body },
      handle,
    );
    if (stored.replayed) headers["Idempotent-Replayed"] = "true";
    outcome = stored;
  } else {
    outcome = { ...(await handle(rootDb)), replayed: false };
  }
  if (def.afterCommit && outcome.status < 300) {
    outcome.body = await def.afterCommit({
      body: outcome.body,
      replayed: outcome.replayed,
      rootDb,
    });
  }
  return outcome;
}

/** Path and query values: well-formed text first (they name URL parts), then the usual rules. */
function parseText(
  schema: NonNullable<RouteDef["params"]>,
  values: Record<string, string>,
  location: "path" | "query",
) {
  const issues = illFormedTextIssues(values, location);
  if (issues[0]) {
    throw new DomainError(
      "validation_failed",
      `Invalid ${location}: ${issues[0].field} ${issues[0].message}`,
      { fields: issues },
    );
  }
  return parseOrThrow(schema, values, location);
}

/**
 * Any failure as the domain error the caller is told: domain errors as they are; a database that
 * does not answer is `service_unavailable`; anything else is logged with the request ID and is
 * `internal_error`, never a guess.
 */
export function asDomainError(
  error: unknown,
  request: { requestId: string; method: string; path: string },
): DomainError {
  if (error instanceof DomainError) return error;
  if (isDatabaseUnavailable(error)) {
    log.error("database unavailable", { requestId: request.requestId, error });
    return new DomainError(
      "service_unavailable",
      "The database is not answering; retry shortly.",
      {},
      { retryAfterSeconds: 5 },
    );
  }
  if (isDatabaseBusy(error)) {
    log.warn("database connections busy", { requestId: request.requestId, error });
    return new DomainError(
      "service_unavailable",
      "The service is busy: no database connection came free in time; retry shortly (an Idempotency-Key makes the retry safe).",
      {},
      { retryAfterSeconds: 1 },
    );
  }
  log.error("unhandled error", { ...request, error });
  return new DomainError("internal_error", "Something went wrong on our side.", {
    request_id: request.requestId,
  });
}

/**
 * Every pooled connection stayed busy past the wait (Prisma's `maxWait` for a transaction, P2028;
 * its pool timeout, P2024): load, not a fault, and nothing was written.
 */
function isDatabaseBusy(error: unknown): boolean {
  const text = String((error as { message?: string })?.message ?? error);
  const code = (error as { code?: string })?.code;
  return (
    code === "P2028" ||
    code === "P2024" ||
    /Unable to start a transaction in the given time|Timed out fetching a new connection/i.test(
      text,
    )
  );
}

function isDatabaseUnavailable(error: unknown): boolean {
  const text = String((error as { message?: string })?.message ?? error);
  const code = (error as { code?: string })?.code;
  return (
    code === "ECONNREFUSED" ||
    code === "P1001" ||
    /ECONNREFUSED|Can't reach database|Connection terminated|connect ETIMEDOUT|the database system is (starting|shutting) up/i.test(
      text,
    )
  );
}
