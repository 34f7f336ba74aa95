import type { z } from "zod";
import type { Db, DbTx } from "../db";
import type { ErrorCode } from "../errors";
import type { RouteScope } from "../access/scopes";
import type { Caller, TenantPrincipal, UserCaller, WorkspacePrincipal } from "../access/caller";
import type { ApiVersion } from "../versions";
import type { Deprecation } from "./versions";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type Idempotency = "required" | "optional";

export type AnyObject = z.ZodType<Record<string, unknown>>;

/**
 * Who may call a route: `public` (no credentials), `tenant` (an API key or a signed-in user's token,
 * resolved against the `{tenant_id}` in the path), `workspace` (a workspace key or a signed-in
 * workspace owner, resolved to the workspace's sandbox tenant: server/sandbox/README.md),
 * `caller` (either credential, no tenant), `user` (a signed-in user's token only; API keys get
 * 403 `user_token_required`).
 */
export type AuthKind = "public" | "tenant" | "workspace" | "caller" | "user";

type CallerFor<A extends AuthKind> = A extends "user"
  ? UserCaller
  : A extends "public"
    ? Caller | undefined
    : Caller;

/** What a declared schema parses to; a part the route does not declare is `Absent`. */
type Parsed<S, Absent> = [S] extends [undefined] ? Absent : z.output<NonNullable<S>>;

export type HandlerContext<P, Q, B, A extends AuthKind> = {
  params: P;
  query: Q;
  body: B;
  version: ApiVersion;
  /** the database, or the idempotency transaction on idempotent routes */
  db: DbTx;
  /** the process-wide client, for work that must not run inside the request transaction */
  rootDb: Db;
  /** the tenant access of a `tenant` route, the sandbox tenant's of a `workspace` route */
  principal: A extends "tenant"
    ? TenantPrincipal
    : A extends "workspace"
      ? WorkspacePrincipal
      : undefined;
  caller: CallerFor<A>;
};

/** `body` is what the route's `response` schema reads (its input side: what goes on the wire). */
export type HandlerResult<Body = unknown> = {
  status?: number;
  body: Body;
  headers?: Record<string, string>;
};

/**
 * One /v1 route. The type parameters keep each route's own schemas, operationId, method and
 * idempotency, so the console's procedures (server/trpc/) take and give exactly the route's types;
 * `RouteDef` without arguments is any route, which is all the router and the OpenAPI document need.
 */
export type RouteDef<
  P extends AnyObject | undefined = AnyObject | undefined,
  Q extends AnyObject | undefined = AnyObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  A extends AuthKind = AuthKind,
  R extends z.ZodType = z.ZodType,
  O extends string = string,
  M extends Method = Method,
  I extends Idempotency | undefined = Idempotency | undefined,
  X = unknown,
> = {
  method: M;
  /** OpenAPI-style template, e.g. `/v1/tenants/{tenant_id}/stations/{station_id}` */
  path: string;
  operationId: O;
  summary: string;
  description?: string;
  tag: string;
  auth: A;
  /** every scope listed is required (workspace scopes on `workspace` routes) */
  scopes?: RouteScope[];
  params?: P;
  query?: Q;
  body?: B;
  /** what the OpenAPI document shows for the body, when the handler validates it itself */
  bodyDoc?: z.ZodType;
  idempotency?: I;
  status: number;
  response: R;
  /**
   * The success's media type when it is not JSON (`image/png`): the handler's body is then the
   * bytes (a Uint8Array), sent as they are, with the headers the handler gives.
   */
  produces?: string;
  /** error codes this route can answer with, beyond the ones every route shares */
  errors?: ErrorCode[];
  deprecated?: Deprecation;
  /**
   * Deprecated body fields: a request that carries one (whatever its value) is answered with the
   * field's `Deprecation`, `Sunset` and `Link` headers, a replay too. Mark the field deprecated in
   * the body schema (`.meta({ deprecated: true })`) for the OpenAPI document.
   */
  deprecatedFields?: Record<string, Deprecation>;
  /**
   * Runs after the request's transaction committed, for the first answer and for replays alike,
   * and may replace the body (e.g. wait briefly for an operation's outcome, or show its latest
   * state on a replay).
   */
  afterCommit?: (args: { body: unknown; replayed: boolean; rootDb: Db }) => Promise<unknown>;
  /**
   * Slow work that needs no database (hashing passwords), run on the parsed body before the
   * request's idempotency transaction opens, so no database connection waits on it; its result is
   * the handler's `prepared`. Skipped (`prepared` undefined, the handler does the work itself) when
   * the Idempotency-Key already has a live record: the transaction then replays or refuses it, as a
   * rule, without the work.
   */
  prepare?(args: { body: Parsed<B, undefined> }): Promise<X>; // (a method, as `handler` is)
  // A method, not a function property: a route with its own types is still a `RouteDef`.
  handler(
    ctx: HandlerContext<
      Parsed<P, Record<string, never>>,
      Parsed<Q, Record<string, never>>,
      Parsed<B, undefined>,
      A
    > & { prepared: X | undefined },
  ): Promise<HandlerResult<z.input<R>>> | HandlerResult<z.input<R>>;
};

/** Declares a route; the generic parameters carry the zod types into the handler and out to callers. */
export function defineRoute<
  R extends z.ZodType,
  O extends string,
  M extends Method,
  A extends AuthKind,
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  I extends Idempotency | undefined = undefined,
  X = unknown,
>(def: RouteDef<P, Q, B, A, R, O, M, I, X>): RouteDef<P, Q, B, A, R, O, M, I, X> {
  return def;
}
