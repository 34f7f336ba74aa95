import { z } from "zod";
import type { DbTx } from "../db";
import type { UserCaller } from "../access/caller";
import { myInvites } from "./my-invites";
import { scopesOf, type TeamRole } from "../access/roles";
import { teamRoleSchema } from "./team-schema";

export const teamSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  role: teamRoleSchema.nullable(),
  projects: z.array(
    z.object({ id: z.number().int(), name: z.string(), scopes: z.array(z.string()) }),
  ),
});

/** The teams the caller belongs to, oldest first, each project with the scopes their role grants. */
export async function myTeams(db: DbTx, caller: UserCaller): Promise<z.infer<typeof teamSchema>[]> {
  const memberships = await db.teamMember.findMany({
    where: { userId: caller.userId },
    include: { team: { include: { tenants: { orderBy: { id: "asc" } } } } },
    orderBy: { teamId: "asc" },
  });
  return memberships.map((m) => ({
    id: m.teamId,
    name: m.team.name,
    role: m.role as TeamRole,
    projects: m.team.tenants.map((t) => ({
      id: t.id,
      name: t.name,
      scopes: [...scopesOf(m.role, caller.platformRole)],
    })),
  }));
}

export const contextSchema = z.object({
  user: z.object({
    id: z.number().int(),
    email: z.string(),
    name: z.string().nullable(),
    platform_role: z.string().nullable(),
  }),
  teams: z.array(teamSchema),
  pending_invites: z.number().int(),
});

export async function myContext(db: DbTx, caller: UserCaller) {
  const [teams, invites] = await Promise.all([myTeams(db, caller), myInvites(db, caller)]);
  return {
    user: {
      id: caller.userId,
      email: caller.email,
      name: caller.name,
      platform_role: caller.platformRole,
    },
    teams,
    pending_invites: invites.length,
  };
}
