import type { z } from "zod";
import type { Db, DbTx } from "../db";
import type { ErrorCode } from "../errors";
import type { Scope } from "../keys/scopes";
import type { Caller, TenantPrincipal, UserCaller } from "../access/caller";
import type { ApiVersion } from "../versions";
import type { Deprecation } from "./versions";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

type AnyObject = z.ZodType<Record<string, unknown>>;

/**
 * Who may call a route: `public` (no credentials), `tenant` (an API key or a signed-in user's token,
 * resolved against the `{tenant_id}` in the path), `caller` (either credential, no tenant), `user`
 * (a signed-in user's token only; API keys get 403 `user_token_required`).
 */
export type AuthKind = "public" | "tenant" | "caller" | "user";

type CallerFor<A extends AuthKind> = A extends "user"
  ? UserCaller
  : A extends "public"
    ? Caller | undefined
    : Caller;

export type HandlerContext<P, Q, B, A extends AuthKind> = {
  req: Request;
  params: P;
  query: Q;
  body: B;
  version: ApiVersion;
  /** the database, or the idempotency transaction on idempotent routes */
  db: DbTx;
  /** the process-wide client, for work that must not run inside the request transaction */
  rootDb: Db;
  /** the tenant access of a `tenant` route (undefined elsewhere) */
  principal: A extends "tenant" ? TenantPrincipal : undefined;
  caller: CallerFor<A>;
};

export type HandlerResult = { status?: number; body: unknown; headers?: Record<string, string> };

export type RouteDef<
  P extends AnyObject = AnyObject,
  Q extends AnyObject = AnyObject,
  B extends z.ZodType = z.ZodType,
  A extends AuthKind = AuthKind,
> = {
  method: Method;
  /** OpenAPI-style template, e.g. `/v1/tenants/{tenant_id}/stations/{station_id}` */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: A;
  /** every scope listed is required */
  scopes?: Scope[];
  params?: P;
  query?: Q;
  body?: B;
  /** what the OpenAPI document shows for the body, when the handler validates it itself */
  bodyDoc?: z.ZodType;
  idempotency?: "required" | "optional";
  status: number;
  response: z.ZodType;
  /** error codes this route can answer with, beyond the ones every route shares */
  errors?: ErrorCode[];
  deprecated?: Deprecation;
  /**
   * Runs after the request's transaction committed, for the first answer and for replays alike,
   * and may replace the body (e.g. wait briefly for an operation's outcome, or show its latest
   * state on a replay).
   */
  afterCommit?: (args: { body: unknown; replayed: boolean; rootDb: Db }) => Promise<unknown>;
  handler: (
    ctx: HandlerContext<z.infer<P>, z.infer<Q>, z.infer<B>, A>,
  ) => Promise<HandlerResult> | HandlerResult;
};

/** Declares a route; the generic parameters carry the zod types into the handler. */
export function defineRoute<
  P extends AnyObject,
  Q extends AnyObject,
  B extends z.ZodType,
  A extends AuthKind,
>(def: RouteDef<P, Q, B, A>): RouteDef {
  return def;
}
