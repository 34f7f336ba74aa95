import { z } from "zod";
import type { Db, DbTx } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { newId } from "../lib/ids";
import { isUniqueViolation } from "../lib/unique-violation";
import { roleAllows, scopesOf, TEAM_ROLES, type TeamRole } from "./roles";
import { requireTeam, requireTeamRead, teamAccess } from "../access/team-access";
import { ownedWorkspace } from "./workspace";

export const MAX_PROJECTS_PER_TEAM = 20;
export const INVITE_TTL_DAYS = 7;

export const name = z.string().trim().min(1).max(100);
export const teamRoleSchema = z.enum(TEAM_ROLES);

// ---- records ---------------------------------------------------------------------------------

export const tenantSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  team_id: z.number().int(),
  authorization_mode: z.enum(["accept_all", "known_tokens"]),
  created_at: z.string(),
});
type TenantRow = {
  id: number;
  name: string;
  teamId: number;
  authorizationMode: string;
  createdAt: Date;
};
export const presentTenant = (t: TenantRow): z.infer<typeof tenantSchema> => ({
  id: t.id,
  name: t.name,
  team_id: t.teamId,
  authorization_mode: t.authorizationMode === "known_tokens" ? "known_tokens" : "accept_all",
  created_at: t.createdAt.toISOString(),
});

export const memberSchema = z.object({
  user_id: z.number().int(),
  email: z.string(),
  name: z.string().nullable(),
  role: teamRoleSchema,
  joined_at: z.string(),
});
const presentMember = (m: {
  userId: number;
  role: string;
  createdAt: Date;
  user: { email: string; name: string | null };
}): z.infer<typeof memberSchema> => ({
  user_id: m.userId,
  email: m.user.email,
  name: m.user.name,
  role: m.role as TeamRole,
  joined_at: m.createdAt.toISOString(),
});

export const inviteSchema = z.object({
  id: z.string(),
  team_id: z.number().int(),
  team_name: z.string(),
  email: z.string(),
  role: teamRoleSchema,
  status: z.enum(["pending", "accepted", "declined", "revoked", "expired"]),
  created_at: z.string(),
  expires_at: z.string(),
});
type InviteRow = {
  id: string;
  teamId: number;
  email: string;
  role: string;
  status: string;
  createdAt: Date;
  expiresAt: Date;
  team: { name: string };
};
const inviteStatus = (i: { status: string; expiresAt: Date }) =>
  (i.status === "pending" && i.expiresAt.getTime() <= Date.now() ? "expired" : i.status) as z.infer<
    typeof inviteSchema
  >["status"];
const presentInvite = (i: InviteRow): z.infer<typeof inviteSchema> => ({
  id: i.id,
  team_id: i.teamId,
  team_name: i.team.name,
  email: i.email,
  role: i.role as TeamRole,
  status: inviteStatus(i),
  created_at: i.createdAt.toISOString(),
  expires_at: i.expiresAt.toISOString(),
});

export const teamSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  role: teamRoleSchema.nullable(),
  projects: z.array(
    z.object({ id: z.number().int(), name: z.string(), scopes: z.array(z.string()) }),
  ),
});

// ---- the signed-in person --------------------------------------------------------------------

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

/**
 * `POST /v1/workspace`: the caller's own team. Returns the oldest team the caller owns; creates one
 * (with the caller as owner) only when they own none. One per person even under concurrent calls.
 */
export async function ensureWorkspace(db: Db, caller: UserCaller, teamName: string) {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`workspace:${caller.userId}`}))`;
    const owned = await ownedWorkspace(tx, caller.userId);
    if (owned)
      return { id: owned.teamId, name: owned.team.name, role: "owner" as const, created: false };
    const team = await tx.team.create({
      data: { name: teamName, members: { create: { userId: caller.userId, role: "owner" } } },
    });
    return { id: team.id, name: team.name, role: "owner" as const, created: true };
  });
}

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
      where: { teamId: membership.teamId },
      orderBy: { id: "asc" },
    });
    if (existing) return existing;
    if (!roleAllows(membership.role, "manageTeam") && caller.platformRole !== "platform-admin") {
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

// ---- projects --------------------------------------------------------------------------------

export async function createProject(
  db: Db,
  caller: UserCaller,
  teamId: number,
  projectName: string,
) {
  const access = await teamAccess(db, caller, teamId);
  requireTeam(access, "manageTeam", "create projects");
  try {
    const tenant = await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`team-projects:${teamId}`}))`;
      const count = await tx.tenant.count({ where: { teamId } });
      if (count >= MAX_PROJECTS_PER_TEAM) {
        throw new DomainError(
          "project_limit",
          `A team has at most ${MAX_PROJECTS_PER_TEAM} projects.`,
          {
            limit: MAX_PROJECTS_PER_TEAM,
          },
        );
      }
      return tx.tenant.create({ data: { teamId, name: projectName } });
    });
    return presentTenant(tenant);
  } catch (error) {
    if (isUniqueViolation(error)) throw projectNameTaken(projectName);
    throw error;
  }
}

const projectNameTaken = (projectName: string) =>
  new DomainError("project_name_taken", "This team already has a project with that name.", {
    name: projectName,
  });

export async function getTenant(db: DbTx, tenantId: number) {
  return presentTenant(await db.tenant.findUniqueOrThrow({ where: { id: tenantId } }));
}

export const updateTenantBody = z
  .object({
    name: name.optional(),
    authorization_mode: z.enum(["accept_all", "known_tokens"]).optional(),
  })
  .strict();

export async function updateTenant(
  db: DbTx,
  caller: UserCaller,
  tenantId: number,
  input: z.infer<typeof updateTenantBody>,
) {
  const tenant = await db.tenant.findUniqueOrThrow({ where: { id: tenantId } });
  requireTeam(await teamAccess(db, caller, tenant.teamId), "manageTeam", "change projects");
  try {
    const updated = await db.tenant.update({
      where: { id: tenantId },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.authorization_mode !== undefined
          ? { authorizationMode: input.authorization_mode }
          : {}),
      },
    });
    return presentTenant(updated);
  } catch (error) {
    if (isUniqueViolation(error)) throw projectNameTaken(input.name ?? "");
    throw error;
  }
}

export async function listProjects(db: DbTx, caller: UserCaller, teamId: number) {
  await teamAccess(db, caller, teamId);
  const tenants = await db.tenant.findMany({ where: { teamId }, orderBy: { id: "asc" } });
  return tenants.map(presentTenant);
}

// ---- members ---------------------------------------------------------------------------------

export async function listMembers(db: DbTx, caller: UserCaller, teamId: number) {
  await teamAccess(db, caller, teamId);
  const members = await db.teamMember.findMany({
    where: { teamId },
    include: { user: true },
    orderBy: [{ createdAt: "asc" }, { userId: "asc" }],
  });
  return members.map(presentMember);
}

export async function getMember(db: DbTx, caller: UserCaller, teamId: number, userId: number) {
  await teamAccess(db, caller, teamId);
  const member = await db.teamMember.findUnique({
    where: { teamId_userId: { teamId, userId } },
    include: { user: true },
  });
  if (!member) throw new DomainError("not_found", "No such member.", { resource: "member" });
  return presentMember(member);
}

/** Locks the team's member rows, so two concurrent changes cannot both leave it ownerless. */
async function lockMembers(tx: DbTx, teamId: number) {
  await tx.$queryRaw`SELECT user_id FROM team_members WHERE team_id = ${teamId} FOR UPDATE`;
}

async function assertNotLastOwner(tx: DbTx, teamId: number, userId: number) {
  const owners = await tx.teamMember.findMany({ where: { teamId, role: "owner" } });
  if (owners.length === 1 && owners[0]?.userId === userId) {
    throw new DomainError(
      "last_owner",
      "A team needs at least one owner; make someone else owner first.",
      {
        team_id: teamId,
        user_id: userId,
      },
    );
  }
}

export async function changeMemberRole(
  db: Db,
  caller: UserCaller,
  teamId: number,
  userId: number,
  role: TeamRole,
) {
  requireTeam(await teamAccess(db, caller, teamId), "manageTeam", "change roles");
  return db.$transaction(async (tx) => {
    await lockMembers(tx, teamId);
    // The caller's own role may have changed meanwhile: judge it again under the lock.
    const access = await teamAccess(tx, caller, teamId);
    requireTeam(access, "manageTeam", "change roles");
    const member = await tx.teamMember.findUnique({
      where: { teamId_userId: { teamId, userId } },
      include: { user: true },
    });
    if (!member) throw new DomainError("not_found", "No such member.", { resource: "member" });
    const ownerInvolved = member.role === "owner" || role === "owner";
    if (ownerInvolved && access.role !== "owner" && access.platformRole !== "platform-admin") {
      throw new DomainError(
        "forbidden",
        "Only an owner can grant or take away the owner role.",
        {},
      );
    }
    if (member.role === "owner" && role !== "owner") await assertNotLastOwner(tx, teamId, userId);
    const updated = await tx.teamMember.update({
      where: { teamId_userId: { teamId, userId } },
      data: { role },
      include: { user: true },
    });
    return presentMember(updated);
  });
}

export async function removeMember(db: Db, caller: UserCaller, teamId: number, userId: number) {
  const before = await teamAccess(db, caller, teamId);
  if (userId !== caller.userId) requireTeam(before, "manageTeam", "remove members");
  return db.$transaction(async (tx) => {
    await lockMembers(tx, teamId);
    const access = await teamAccess(tx, caller, teamId);
    if (userId !== caller.userId) requireTeam(access, "manageTeam", "remove members");
    const member = await tx.teamMember.findUnique({
      where: { teamId_userId: { teamId, userId } },
      include: { user: true },
    });
    if (!member) throw new DomainError("not_found", "No such member.", { resource: "member" });
    if (
      member.role === "owner" &&
      userId !== caller.userId &&
      access.role !== "owner" &&
      access.platformRole !== "platform-admin"
    ) {
      throw new DomainError("forbidden", "Only an owner can remove an owner.", {});
    }
    if (member.role === "owner") await assertNotLastOwner(tx, teamId, userId);
    await tx.teamMember.delete({ where: { teamId_userId: { teamId, userId } } });
    return presentMember(member);
  });
}

// ---- invites ---------------------------------------------------------------------------------

export const createInviteBody = z
  .object({
    email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
    role: teamRoleSchema,
  })
  .strict();

export async function listInvites(
  db: DbTx,
  caller: UserCaller,
  teamId: number,
  status: "pending" | "all",
) {
  requireTeamRead(await teamAccess(db, caller, teamId), "manageTeam", "see invitations");
  const invites = await db.invite.findMany({
    where: {
      teamId,
      ...(status === "pending" ? { status: "pending", expiresAt: { gt: new Date() } } : {}),
    },
    include: { team: true },
    orderBy: { createdAt: "desc" },
  });
  return invites.map(presentInvite);
}

export async function getInvite(db: DbTx, caller: UserCaller, teamId: number, inviteId: string) {
  requireTeamRead(await teamAccess(db, caller, teamId), "manageTeam", "see invitations");
  const invite = await db.invite.findFirst({
    where: { id: inviteId, teamId },
    include: { team: true },
  });
  if (!invite) throw new DomainError("not_found", "No such invitation.", { resource: "invite" });
  return presentInvite(invite);
}

export async function createInvite(
  db: Db,
  caller: UserCaller,
  teamId: number,
  input: z.infer<typeof createInviteBody>,
) {
  const access = await teamAccess(db, caller, teamId);
  requireTeam(access, "manageTeam", "invite people");
  if (
    input.role === "owner" &&
    access.role !== "owner" &&
    access.platformRole !== "platform-admin"
  ) {
    throw new DomainError("forbidden", "Only an owner can invite an owner.", {});
  }
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`invite:${teamId}:${input.email}`}))`;
    const member = await tx.teamMember.findFirst({
      where: { teamId, user: { email: { equals: input.email, mode: "insensitive" } } },
    });
    if (member) {
      throw new DomainError("already_member", "This person is already a member of the team.", {
        email: input.email,
        user_id: member.userId,
      });
    }
    const pending = await tx.invite.findFirst({
      where: { teamId, email: input.email, status: "pending", expiresAt: { gt: new Date() } },
    });
    if (pending) {
      throw new DomainError("invite_pending", "An invitation to this email is already pending.", {
        invite_id: pending.id,
        expires_at: pending.expiresAt.toISOString(),
      });
    }
    const invite = await tx.invite.create({
      data: {
        id: newId("inv"),
        teamId,
        email: input.email,
        role: input.role,
        invitedByUserId: caller.userId,
        expiresAt: new Date(Date.now() + INVITE_TTL_DAYS * 86_400_000),
      },
      include: { team: true },
    });
    return presentInvite(invite);
  });
}

const closed = (invite: { id: string; status: string }) =>
  new DomainError("invite_closed", `This invitation is already ${invite.status}.`, {
    invite_id: invite.id,
    status: invite.status,
  });

export async function revokeInvite(db: Db, caller: UserCaller, teamId: number, inviteId: string) {
  requireTeam(await teamAccess(db, caller, teamId), "manageTeam", "revoke invitations");
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM invites WHERE id = ${inviteId} AND team_id = ${teamId} FOR UPDATE`;
    if (!rows[0]) throw new DomainError("not_found", "No such invitation.", { resource: "invite" });
    const invite = await tx.invite.findUniqueOrThrow({ where: { id: inviteId } });
    if (invite.status !== "pending") throw closed(invite);
    const updated = await tx.invite.update({
      where: { id: inviteId },
      data: { status: "revoked", respondedAt: new Date() },
      include: { team: true },
    });
    return presentInvite(updated);
  });
}

/** Pending, unexpired invitations addressed to the caller's email. */
export async function myInvites(db: DbTx, caller: UserCaller) {
  const invites = await db.invite.findMany({
    where: {
      email: { equals: caller.email, mode: "insensitive" },
      status: "pending",
      expiresAt: { gt: new Date() },
    },
    include: { team: true },
    orderBy: { createdAt: "desc" },
  });
  return invites.map(presentInvite);
}

/**
 * Accept or decline an invitation addressed to the caller's email (others: 404). Accepting while
 * already a member closes the invitation (status `accepted`, role unchanged) and answers 409
 * `already_member`.
 */
export async function respondToInvite(
  db: Db,
  caller: UserCaller,
  inviteId: string,
  answer: "accept" | "decline",
) {
  const outcome = await db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM invites
       WHERE id = ${inviteId} AND lower(email) = lower(${caller.email})
         FOR UPDATE`;
    if (!rows[0]) throw new DomainError("not_found", "No such invitation.", { resource: "invite" });
    const invite = await tx.invite.findUniqueOrThrow({ where: { id: inviteId } });
    if (invite.status !== "pending") throw closed(invite);
    if (invite.expiresAt.getTime() <= Date.now()) {
      throw new DomainError("invite_expired", "This invitation has expired; ask for a new one.", {
        invite_id: invite.id,
        expired_at: invite.expiresAt.toISOString(),
      });
    }
    const member = await tx.teamMember.findUnique({
      where: { teamId_userId: { teamId: invite.teamId, userId: caller.userId } },
    });
    if (answer === "accept" && !member) {
      await tx.teamMember.create({
        data: { teamId: invite.teamId, userId: caller.userId, role: invite.role },
      });
    }
    const updated = await tx.invite.update({
      where: { id: inviteId },
      data: { status: answer === "accept" ? "accepted" : "declined", respondedAt: new Date() },
      include: { team: true },
    });
    return { invite: presentInvite(updated), alreadyMember: answer === "accept" && member };
  });
  if (outcome.alreadyMember) {
    throw new DomainError(
      "already_member",
      "You are already a member of this team; the invitation is now closed and your role is unchanged.",
      { team_id: outcome.invite.team_id, role: outcome.alreadyMember.role },
    );
  }
  return outcome.invite;
}
