import { z } from "zod";
import type { Db, DbTx } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { actsAsOwner, requireTeam, requireTeamRead, teamAccess } from "../access/team-access";
import { newId } from "../lib/ids";
import type { TeamRole } from "../access/roles";
import { teamRoleSchema } from "./team-schema";

export const INVITE_TTL_DAYS = 7;

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
export const presentInvite = (i: InviteRow): z.infer<typeof inviteSchema> => ({
  id: i.id,
  team_id: i.teamId,
  team_name: i.team.name,
  email: i.email,
  role: i.role as TeamRole,
  status: inviteStatus(i),
  created_at: i.createdAt.toISOString(),
  expires_at: i.expiresAt.toISOString(),
});

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
  if (input.role === "owner" && !actsAsOwner(access)) {
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

export const inviteClosed = (invite: { id: string; status: string }) =>
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
    if (invite.status !== "pending") throw inviteClosed(invite);
    const updated = await tx.invite.update({
      where: { id: inviteId },
      data: { status: "revoked", respondedAt: new Date() },
      include: { team: true },
    });
    return presentInvite(updated);
  });
}
