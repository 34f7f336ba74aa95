import type { Db } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { teamAllows } from "../access/team-access";
import { scopesOf } from "../access/roles";
import { presentTenant } from "./projects";

/**
 * `POST /v1/me/tenant`: the caller's default project — the oldest project of the oldest team they
 * belong to, created as "Default project" when that team has none and the caller may manage it.
 * Without any grant: 403 `no_grant` and nothing is created. Concurrent calls return one tenant.
 */
export async function myTenant(db: Db, caller: UserCaller) {
  // A platform role reaches every project but names none, so it alone assigns no tenant.
  const membership = await db.teamMember.findFirst({
    where: { userId: caller.userId },
    orderBy: [{ team: { createdAt: "asc" } }, { teamId: "asc" }],
  });
  if (!membership) {
    throw new DomainError(
      "no_grant",
      "You have no access grant: create a workspace or accept an invitation first.",
      {},
    );
  }
  const tenant = await db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`team-projects:${membership.teamId}`}))`;
    const existing = await tx.tenant.findFirst({
      where: { teamId: membership.teamId, kind: "project" },
      orderBy: { id: "asc" },
    });
    if (existing) return existing;
    const standing = { role: membership.role, platformRole: caller.platformRole };
    if (!teamAllows(standing, "manageTeam")) {
      throw new DomainError(
        "no_grant",
        "Your team has no project yet and your role cannot create one; ask an owner or admin.",
        { team_id: membership.teamId, role: membership.role },
      );
    }
    return tx.tenant.create({ data: { teamId: membership.teamId, name: "Default project" } });
  });
  return {
    tenant: presentTenant(tenant),
    roles: [membership.role, caller.platformRole].filter((r): r is string => Boolean(r)),
    scopes: [...scopesOf(membership.role, caller.platformRole)],
  };
}
