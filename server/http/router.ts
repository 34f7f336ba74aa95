import crypto from "node:crypto";
import { db as getDb } from "../db";
import { DomainError } from "../errors";
import { rateLimited, type RateLimitState } from "../lib/rate-limit";
import { apiRequestCounter } from "../team-billing/api-requests";
import type { Caller } from "../access/caller";
import { authenticate } from "./auth";
import { readJsonBody } from "./body";
import { asDomainError, executeRoute } from "./execute";
import { routeNotFound } from "./raw-path";
import { noteV1Route } from "./metered-v1";
import { ERROR_STATUS, errorBody, errorHeaders } from "./errors";
import type { Method, RouteDef } from "./route";
import { LATEST_VERSION, type ApiVersion } from "../versions";
import { requestedVersion } from "./versions";

export type CompiledRoute = { def: RouteDef; pattern: RegExp; names: string[]; parts: number };

const METHODS: Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function compileRoutes(routes: RouteDef[]): CompiledRoute[] {
  return routes.map((def) => {
    const names: string[] = [];
    const source = def.path
      .split("/")
      .map((segment) => {
        // `{name}` or `{name}.ext` (a file name: `{sha256}.png`)
        const param = /^\{(\w+)\}(\.\w+)?$/.exec(segment);
        if (!param?.[1]) return escape(segment);
        names.push(param[1]);
        return `([^/]+)${escape(param[2] ?? "")}`;
      })
      .join("/");
    return { def, pattern: new RegExp(`^${source}/?$`), names, parts: partsOf(def.path) };
  });
}

/**
 * How many "/"-separated parts a path has, one trailing "/" aside. A route's pattern matches only a
 * path with as many parts as its template (each template segment, literal or `{name}`, is one
 * part without "/"), so the router tries only the routes of the request path's count.
 */
function partsOf(pathname: string) {
  let parts = 1;
  const end = pathname.endsWith("/") ? pathname.length - 1 : pathname.length;
  for (let i = 0; i < end; i++) if (pathname.charCodeAt(i) === 47) parts++;
  return parts;
}

/** The routes by their count of parts (`partsOf`), each list in the routes' order. */
export function byParts(compiled: CompiledRoute[]) {
  const lists = new Map<number, CompiledRoute[]>();
  for (const route of compiled) {
    const list = lists.get(route.parts) ?? [];
    list.push(route);
    lists.set(route.parts, list);
  }
  return (pathname: string) => lists.get(partsOf(pathname)) ?? [];
}

/** Every route whose path template matches, with its decoded path values. */
export function match(routes: CompiledRoute[], pathname: string) {
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
 * The /v1 transport, in order: route match (404/405), requested version (400), credentials (401),
 * rate limit (429); then the route's own steps (`executeRoute`: audience, path tenant, scopes,
 * params, query, Idempotency-Key, body, handler), with the body read from the request only when
 * those steps reach it. Every failure is answered in the one error shape.
 */
export function createRouter(routes: RouteDef[]) {
  const compiled = compileRoutes(routes);
  const routesFor = byParts(compiled);

  return async function handle(req: Request): Promise<Response> {
    const counted: { tenantId: number | null } = { tenantId: null };
    const response = await answer(req, counted);
    if (counted.tenantId !== null && countsAsRequest(response.status))
      apiRequestCounter().count(counted.tenantId);
    return response;
  };

  /** The answer; `counted.tenantId` is set once the request is known to be a tenant's. */
  async function answer(req: Request, counted: { tenantId: number | null }): Promise<Response> {
    const requestId = `req_${crypto.randomBytes(8).toString("hex")}`;
    const headers: Record<string, string> = {
      "Request-Id": requestId,
      "Service-Version": LATEST_VERSION,
    };
    const url = new URL(req.url);
    const method = req.method.toUpperCase();
    try {
      const candidates = match(routesFor(url.pathname), url.pathname);
      if (candidates.length === 0) {
        throw routeNotFound(url.pathname);
      }
      const lookup = method === "HEAD" ? "GET" : method;
      const hit = candidates.find((c) => c.route.def.method === lookup);
      noteV1Route(req, (hit ?? candidates[0])?.route.def.path); // the latency's route label
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

      let caller: Caller | undefined;
      if (def.auth !== "public") {
        const rootDb = getDb();
        const authenticated = await authenticate(rootDb, req.headers.get("authorization"));
        caller = authenticated.caller;
        if (caller.kind === "api_key") counted.tenantId = caller.tenantId;
        const version: ApiVersion = asked ?? caller.apiVersion;
        headers["Service-Version"] = version;
        Object.assign(headers, rateLimitHeaders(authenticated.rateLimit));
        if (authenticated.rateLimit.exceeded) throw rateLimited(authenticated.rateLimit);
      }

      const { status, body } = await executeRoute(def, {
        caller,
        version: headers["Service-Version"] as ApiVersion,
        params: hit.params,
        query: Object.fromEntries(url.searchParams),
        idempotencyKey: req.headers.get("idempotency-key"),
        readBody: () => readJsonBody(req),
        method,
        path: url.pathname,
        headers,
        requestId,
        onTenant: (tenantId) => (counted.tenantId = tenantId),
      });
      if (method === "HEAD") return new Response(null, { status, headers });
      // bytes (a route that `produces` another media type), with the handler's headers
      if (body instanceof Uint8Array) return new Response(Buffer.from(body), { status, headers });
      return json(status, body, headers);
    } catch (error) {
      const domain = asDomainError(error, { requestId, method, path: url.pathname });
      return errorResponse(domain, headers);
    }
  }
}

/**
 * Which answers count as a tenant's API requests (team usage, `api_requests`): every answer the
 * service gave the tenant's caller, refusals of the request (4xx) included, except being refused
 * by the rate limit (429, which has its own counter) and the service's own failures (5xx: 500, or
 * 503 when the database is down or busy). An unauthenticated request (401) has no tenant.
 */
export const countsAsRequest = (status: number) => status !== 429 && status < 500;
