import type { DbTx } from "../db";
import { DomainError } from "../errors";
import { roleAllows, TEAM_PERMISSIONS, type TeamPermission } from "./roles";
import type { UserCaller } from "./caller";
import { noSuchTenant } from "./tenant-access";

export type TeamAccess = { teamId: number; role: string | null; platformRole: string | null };

const noSuchTeam = () => new DomainError("not_found", "No such team.", { resource: "team" });

/**
 * A signed-in user's standing in a team: their role, or a platform role. Non-members get the same
 * 404 as for a team that does not exist. Platform admins act as team admins; platform support reads.
 */
export async function teamAccess(
  db: DbTx,
  caller: UserCaller,
  teamId: number,
): Promise<TeamAccess> {
  const team = await db.team.findUnique({
    where: { id: teamId },
    select: { id: true, members: { where: { userId: caller.userId }, select: { role: true } } },
  });
  const role = team?.members[0]?.role ?? null;
  if (!team || (!role && !caller.platformRole)) throw noSuchTeam();
  return { teamId, role, platformRole: caller.platformRole };
}

/**
 * A signed-in user's standing in a project's team. A project that exists but is not the caller's
 * gets the same 404 as one that does not exist.
 */
export async function projectTeamAccess(
  db: DbTx,
  caller: UserCaller,
  tenantId: number,
): Promise<TeamAccess> {
  const tenant = await db.tenant.findUnique({ where: { id: tenantId }, select: { teamId: true } });
  if (!tenant) throw noSuchTenant();
  try {
    return await teamAccess(db, caller, tenant.teamId);
  } catch (error) {
    if (error instanceof DomainError && error.code === "not_found") throw noSuchTenant();
    throw error;
  }
}

/**
 * Whether a team role and platform role together allow a team-level thing: platform admins act as
 * team admins (except for workspace keys); for reads, platform support may see what it guards.
 */
export function teamAllows(
  access: Pick<TeamAccess, "role" | "platformRole">,
  permission: TeamPermission,
  kind: "write" | "read" = "write",
): boolean {
  if (roleAllows(access.role, permission)) return true;
  // platform admins act as team admins, but the team's own money is its owners' and billing
  // people's: staff neither hold workspace keys nor put a card on file for a team
  if (
    access.platformRole === "platform-admin" &&
    permission !== "manageWorkspaceKeys" &&
    permission !== "manageBilling"
  )
    return true;
  return kind === "read" && access.platformRole === "platform-support";
}

/** Only owners, and platform admins, grant, invite or remove owners. */
export function actsAsOwner(access: Pick<TeamAccess, "role" | "platformRole">): boolean {
  return access.role === "owner" || access.platformRole === "platform-admin";
}

/** Throws 403 unless the caller's role (or platform role) allows the permission. */
export function requireTeam(access: TeamAccess, permission: TeamPermission, what: string): void {
  if (teamAllows(access, permission)) return;
  throw new DomainError("forbidden", `Your role in this team cannot ${what}.`, {
    role: access.role,
    required_roles: roleNames(permission),
  });
}

const roleNames = (permission: TeamPermission) => [...TEAM_PERMISSIONS[permission]];

/** Like `requireTeam` for reads: platform support staff may read what the permission guards. */
export function requireTeamRead(
  access: TeamAccess,
  permission: TeamPermission,
  what: string,
): void {
  if (teamAllows(access, permission, "read")) return;
  requireTeam(access, permission, what);
}
