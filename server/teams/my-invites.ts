import type { Db, DbTx } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { inviteClosed, presentInvite } from "./invites";

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
    if (invite.status !== "pending") throw inviteClosed(invite);
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
