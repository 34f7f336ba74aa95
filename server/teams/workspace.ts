import type { Db, DbTx } from "../db";
import type { UserCaller } from "../access/caller";

/** A person's workspace: the oldest team they own (what `POST /v1/workspace` answers), or null. */
export function ownedWorkspace(db: DbTx, userId: number) {
  return db.teamMember.findFirst({
    where: { userId, role: "owner" },
    include: { team: true },
    orderBy: { teamId: "asc" },
  });
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
