import { z } from "zod";
import type { Db, DbTx } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { actsAsOwner, requireTeam, teamAccess } from "../access/team-access";
import type { TeamRole } from "../access/roles";
import { teamRoleSchema } from "./team-schema";

export const memberSchema = z.object({
  user_id: z.number().int(),
  email: z.string(),
  name: z.string().nullable(),
  role: teamRoleSchema,
  joined_at: z.string(),
});
export const presentMember = (m: {
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
    if (ownerInvolved && !actsAsOwner(access)) {
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
    if (member.role === "owner" && userId !== caller.userId && !actsAsOwner(access)) {
      throw new DomainError("forbidden", "Only an owner can remove an owner.", {});
    }
    if (member.role === "owner") await assertNotLastOwner(tx, teamId, userId);
    await tx.teamMember.delete({ where: { teamId_userId: { teamId, userId } } });
    return presentMember(member);
  });
}
