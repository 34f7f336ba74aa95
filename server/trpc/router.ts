import { z } from "zod";
import { db } from "../db";
import { DomainError } from "../errors";
import { ERROR_STATUS, errorBody, type ErrorBody } from "../http/errors";
import { resolveTenantAccess } from "../access/tenant-access";
import { nestedTooDeeply } from "../http/body";
import { handleV1, allRoutes } from "../http/routes";
import { isPlatformRole } from "../teams/roles";
import { teamAllows } from "../teams/team-access";
import { myContext } from "../teams/teams";
import { ConsoleApiError, protectedProcedure, router } from "./init";
import { CONSOLE_MUTATIONS, CONSOLE_QUERIES, type ConsoleOperation } from "./operations";

export type { ConsoleOperation };

const scalar = z.union([z.string(), z.number(), z.boolean()]);
export const operationInput = z.object({
  params: z.record(z.string(), scalar).default({}),
  query: z.record(z.string(), scalar.optional()).optional(),
  body: z.unknown().optional(),
  /** mutations: the form's own key, so a retried submit replays instead of repeating */
  idempotencyKey: z.string().min(8).max(128).optional(),
});
export type OperationInput = z.input<typeof operationInput>;

const invalidPathParameter = (name: string, message: string) =>
  new ConsoleApiError(422, {
    code: "validation_failed",
    message: `Invalid path: ${name} ${message}`,
    details: { fields: [{ field: name, message, location: "path" }] },
  });

/** The body as /v1 reads it. Far too deep to serialize is the same answer /v1 gives too deep. */
function bodyText(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch {
    throw new ConsoleApiError(400, errorBody(nestedTooDeeply()).error);
  }
}

const byId = new Map(allRoutes.map((r) => [r.operationId, r]));

/** Runs one /v1 operation as the signed-in person and returns its body, or throws its error. */
async function run(
  caller: NonNullable<Parameters<typeof handleV1>[1]>,
  operationId: ConsoleOperation,
  input: z.output<typeof operationInput>,
): Promise<unknown> {
  const def = byId.get(operationId);
  if (!def) throw new Error(`no /v1 operation ${operationId}`);
  const path = def.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = input.params[name];
    if (value === undefined) throw invalidPathParameter(name, "is required");
    try {
      return encodeURIComponent(String(value));
    } catch {
      throw invalidPathParameter(name, "is not well-formed text (a lone surrogate)");
    }
  });
  const url = new URL(`http://console.internal${path}`);
  for (const [k, v] of Object.entries(input.query ?? {})) {
    if (v !== undefined && v !== "") url.searchParams.set(k, String(v));
  }
  const headers: Record<string, string> = {};
  if (input.body !== undefined) headers["content-type"] = "application/json";
  if (input.idempotencyKey) headers["idempotency-key"] = input.idempotencyKey;
  const res = await handleV1(
    new Request(url, {
      method: def.method,
      headers,
      body: input.body === undefined ? undefined : bodyText(input.body),
    }),
    caller,
  );
  const text = await res.text();
  const body: unknown = text ? JSON.parse(text) : null;
  if (res.status >= 400) throw new ConsoleApiError(res.status, (body as ErrorBody).error);
  return body;
}

const query = (id: ConsoleOperation) =>
  protectedProcedure.input(operationInput).query(({ ctx, input }) => run(ctx.caller, id, input));
const mutation = (id: ConsoleOperation) =>
  protectedProcedure.input(operationInput).mutation(({ ctx, input }) => run(ctx.caller, id, input));

const queries = Object.fromEntries(CONSOLE_QUERIES.map((id) => [id, query(id)])) as Record<
  (typeof CONSOLE_QUERIES)[number],
  ReturnType<typeof query>
>;
const mutations = Object.fromEntries(CONSOLE_MUTATIONS.map((id) => [id, mutation(id)])) as Record<
  (typeof CONSOLE_MUTATIONS)[number],
  ReturnType<typeof mutation>
>;

/**
 * The signed-in person's standing in one project, by the same rule /v1 applies: their team role,
 * their platform role, and the scopes the two grant. Platform staff who are not members get their
 * platform scopes here (`me` lists memberships only). An unknown project, or one they cannot reach,
 * is NOT_FOUND with /v1's `not_found` body.
 */
async function projectAccess(caller: Parameters<typeof myContext>[1], tenantId: number) {
  try {
    const access = await resolveTenantAccess(db(), caller, tenantId);
    const tenant = await db().tenant.findUniqueOrThrow({
      where: { id: tenantId },
      select: { name: true, team: { select: { id: true, name: true } } },
    });
    const standing = {
      role: access.roles.find((r) => !isPlatformRole(r)) ?? null,
      platformRole: caller.platformRole,
    };
    return {
      tenant_id: tenantId,
      name: tenant.name,
      team: tenant.team,
      role: standing.role,
      platform_role: standing.platformRole,
      scopes: [...access.scopes].sort(),
      /** the team-level things /v1 lets this person do here (same rule as its routes) */
      can: {
        manage_team: teamAllows(standing, "manageTeam"),
        read_team: teamAllows(standing, "manageTeam", "read"),
        manage_project_keys: teamAllows(standing, "manageProjectKeys"),
      },
    };
  } catch (error) {
    if (error instanceof DomainError)
      throw new ConsoleApiError(ERROR_STATUS[error.code], errorBody(error).error);
    throw error;
  }
}

export const appRouter = router({
  /** who is signed in, their teams and projects with their scopes in each */
  me: protectedProcedure.query(({ ctx }) => myContext(db(), ctx.caller)),
  project: protectedProcedure
    .input(z.object({ tenant_id: z.number().int().positive().max(2_147_483_647) }))
    .query(({ ctx, input }) => projectAccess(ctx.caller, input.tenant_id)),
  v1: router({ ...queries, ...mutations }),
});

export type AppRouter = typeof appRouter;
