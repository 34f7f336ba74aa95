import { z } from "zod";
import { db } from "../db";
import { DomainError } from "../errors";
import { resolveTenantAccess } from "../access/tenant-access";
import { isPlatformRole } from "../access/roles";
import { teamAllows } from "../access/team-access";
import { resourceId } from "../lib/int4";
import { userContext } from "../teams/my-context";
import { consoleError, protectedProcedure, router } from "./init";
import { v1Procedures, type ConsoleOperation } from "./operations";
import type { RouteInput, RouteOutput } from "./route-input";

export type { ConsoleOperation, RouteInput, RouteOutput };

/**
 * The signed-in person's standing in one project, by the same rule /v1 applies: their team role,
 * their platform role, and the scopes the two grant. Platform staff who are not members get their
 * platform scopes here (`me` lists memberships only). An unknown project, or one they cannot reach,
 * is NOT_FOUND with /v1's `not_found` body.
 */
async function projectAccess(caller: Parameters<typeof userContext>[1], tenantId: number) {
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
    if (error instanceof DomainError) throw consoleError(error);
    throw error;
  }
}

export const appRouter = router({
  /** who is signed in, their teams and projects with their scopes in each */
  me: protectedProcedure.query(({ ctx }) => userContext(db(), ctx.caller)),
  project: protectedProcedure
    .input(z.object({ tenant_id: resourceId }))
    .query(({ ctx, input }) => projectAccess(ctx.caller, input.tenant_id)),
  v1: router(v1Procedures),
});

export type AppRouter = typeof appRouter;
