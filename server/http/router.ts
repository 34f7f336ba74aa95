import crypto from "node:crypto";
import { db as getDb } from "../db";
import { DomainError } from "../errors";
import { countAttempt, rateLimited, type RateLimitState } from "../lib/rate-limit";
import { log } from "../log";
import { missingScopes } from "../keys/scopes";
import { resolveTenantAccess } from "../access/tenant-access";
import type { Caller, TenantPrincipal } from "../access/caller";
import { authenticate } from "./auth";
import { readJsonBody } from "./body";
import { readIdempotencyKey, withIdempotency } from "./idempotency";
import { routeNotFound } from "./raw-path";
import { ERROR_STATUS, errorBody, errorHeaders, locateFields } from "./errors";
import type { Method, RouteDef } from "./route";
import { parseOrThrow } from "./validation";
import { LATEST_VERSION, type ApiVersion } from "../versions";
import { deprecationHeaders, requestedVersion } from "./versions";

type CompiledRoute = { def: RouteDef; pattern: RegExp; names: string[] };

const METHODS: Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export function compileRoutes(routes: RouteDef[]): CompiledRoute[] {
  return routes.map((def) => {
    const names: string[] = [];
    const source = def.path
      .split("/")
      .map((segment) => {
        const param = /^\{(\w+)\}$/.exec(segment);
        if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        names.push(param[1]);
        return "([^/]+)";
      })
      .join("/");
    return { def, pattern: new RegExp(`^${source}/?$`), names };
  });
}

function match(routes: CompiledRoute[], pathname: string) {
  const found: { route: CompiledRoute; params: Record<string, string> }[] = [];
  for (const route of routes) {
    const m = route.pattern.exec(pathname);
    if (!m) continue;
    const params: Record<string, string> = {};
    let decodable = true;
    route.names.forEach((name, i) => {
      try {
        params[name] = decodeURIComponent(m[i + 1] ?? "");
      } catch {
        decodable = false;
      }
    });
    if (decodable) found.push({ route, params });
  }
  return found;
}

function json(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      ...headers,
    },
  });
}

function errorResponse(error: DomainError, headers: Record<string, string>): Response {
  return json(ERROR_STATUS[error.code], errorBody(error), { ...headers, ...errorHeaders(error) });
}

/** Documented rate-limit headers (IETF RateLimit header fields draft, plain form). */
function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    "RateLimit-Limit": String(state.limit),
    "RateLimit-Remaining": String(state.remaining),
    "RateLimit-Reset": String(state.resetSeconds),
  };
}

/**
 * The /v1 pipeline every route goes through, in order: route match (404/405), requested version
 * (400), credentials (401), rate limit (429), user-only routes (403), path tenant (404, the same
 * answer whether or not the tenant exists), scopes (403), params and query (422), Idempotency-Key (400), body (413,
 * 415, 400, 422), then the handler, inside the idempotency transaction where declared.
 */
export function createRouter(routes: RouteDef[]) {
  const compiled = compileRoutes(routes);

  /**
   * `as`: a caller already authenticated by the console's session (tRPC). Such calls skip the
   * Authorization header and the per-minute limit, and go through every other step unchanged.
   */
  return async function handle(req: Request, as?: Caller): Promise<Response> {
    const requestId = `req_${crypto.randomBytes(8).toString("hex")}`;
    const headers: Record<string, string> = {
      "Request-Id": requestId,
      "Service-Version": LATEST_VERSION,
    };
    const url = new URL(req.url);
    const method = req.method.toUpperCase();
    // what the request carried, so a service's field errors can say where each field came from
    const parts: { params: unknown; query: unknown; body: unknown } = {
      params: {},
      query: {},
      body: undefined,
    };
    try {
      const candidates = match(compiled, url.pathname);
      if (candidates.length === 0) {
        throw routeNotFound(url.pathname);
      }
      const lookup = method === "HEAD" ? "GET" : method;
      const hit = candidates.find((c) => c.route.def.method === lookup);
      const allowed = [...new Set(candidates.map((c) => c.route.def.method))].sort(
        (a, b) => METHODS.indexOf(a) - METHODS.indexOf(b),
      );
      if (method === "OPTIONS") {
        return new Response(null, {
          status: 204,
          headers: { ...headers, Allow: [...allowed, "OPTIONS"].join(", ") },
        });
      }
      if (!hit) {
        throw new DomainError(
          "method_not_allowed",
          `${method.slice(0, 10)} is not allowed on this route.`,
          { allowed_methods: allowed },
        );
      }
      const def = hit.route.def;
      const asked = requestedVersion(req.headers.get("service-version"));
      if (asked) headers["Service-Version"] = asked;

      const rootDb = getDb();
      let caller: Caller | undefined;
      let principal: TenantPrincipal | undefined;
      if (def.auth !== "public") {
        caller = as ?? (await authenticate(rootDb, req.headers.get("authorization")));
        const version: ApiVersion = asked ?? caller.apiVersion;
        headers["Service-Version"] = version;
        if (!as) {
          const limit = await countAttempt(rootDb, caller.actorId, caller.rateLimitPerMinute);
          Object.assign(headers, rateLimitHeaders(limit));
          if (limit.exceeded) throw rateLimited(limit);
        }
        if (def.auth === "user" && caller.kind !== "user") {
          throw new DomainError(
            "user_token_required",
            "This route needs a signed-in user's access token, not an API key.",
            {},
          );
        }
        if (def.auth === "tenant") {
          const pathTenant = hit.params.tenant_id ?? "";
          // Same answer for a tenant that exists and one that does not.
          if (!/^[1-9]\d{0,9}$/.test(pathTenant) || Number(pathTenant) > 2147483647) {
            throw new DomainError("not_found", "No such tenant.", { resource: "tenant" });
          }
          principal = await resolveTenantAccess(rootDb, caller, Number(pathTenant));
          const missing = missingScopes(principal.scopes, def.scopes ?? []);
          if (missing.length) {
            throw new DomainError(
              "insufficient_scope",
              `${caller.kind === "api_key" ? "This API key lacks" : "Your role does not grant"} the scope ${missing.join(", ")}.`,
              { required_scopes: def.scopes ?? [], missing_scopes: missing },
            );
          }
        }
      }
      const version = headers["Service-Version"] as ApiVersion;
      if (def.deprecated) Object.assign(headers, deprecationHeaders(def.deprecated));

      const params = def.params ? parseOrThrow(def.params, hit.params, "path") : {};
      const query = def.query
        ? parseOrThrow(def.query, Object.fromEntries(url.searchParams), "query")
        : {};
      const idempotencyKey = def.idempotency
        ? readIdempotencyKey(req.headers.get("idempotency-key"), def.idempotency === "required")
        : undefined;
      Object.assign(parts, { params, query });
      let body: unknown = undefined;
      if (method !== "GET" && method !== "HEAD") {
        const raw = await readJsonBody(req);
        if (def.body) body = parseOrThrow(def.body, raw, "body");
        else if (raw !== undefined) {
          throw new DomainError("validation_failed", "This route takes no request body.", {
            fields: [{ field: "body", message: "must be empty", location: "body" }],
          });
        }
      }

      parts.body = body;
      const run = async (
        db: typeof rootDb | Parameters<Parameters<typeof withIdempotency>[2]>[0],
      ) => {
        const result = await def.handler({
          req,
          params,
          query,
          body,
          version,
          db,
          rootDb,
          principal,
          caller,
        });
        Object.assign(headers, result.headers ?? {});
        return { status: result.status ?? def.status, body: result.body };
      };

      let status: number;
      let responseBody: unknown;
      if (idempotencyKey && caller) {
        const stored = await withIdempotency(
          rootDb,
          { apiKeyId: caller.actorId, key: idempotencyKey, method, path: url.pathname, body },
          (tx) => run(tx),
        );
        if (stored.replayed) headers["Idempotent-Replayed"] = "true";
        status = stored.status;
        responseBody = stored.body;
      } else {
        ({ status, body: responseBody } = await run(rootDb));
      }
      if (def.afterCommit && status < 300) {
        responseBody = await def.afterCommit({
          body: responseBody,
          replayed: headers["Idempotent-Replayed"] === "true",
          rootDb,
        });
      }
      if (method === "HEAD") return new Response(null, { status, headers });
      return json(status, responseBody, headers);
    } catch (error) {
      if (error instanceof DomainError) return errorResponse(locateFields(error, parts), headers);
      if (isDatabaseUnavailable(error)) {
        log.error("database unavailable", { requestId, error });
        return errorResponse(
          new DomainError(
            "service_unavailable",
            "The database is not answering; retry shortly.",
            {},
            { retryAfterSeconds: 5 },
          ),
          headers,
        );
      }
      log.error("unhandled error", { requestId, method, path: url.pathname, error });
      return errorResponse(
        new DomainError("internal_error", "Something went wrong on our side.", {
          request_id: requestId,
        }),
        headers,
      );
    }
  };
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
