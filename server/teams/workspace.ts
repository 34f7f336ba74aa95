import type { DbTx } from "../db";

/** A person's workspace: the oldest team they own (what `POST /v1/workspace` answers), or null. */
export function ownedWorkspace(db: DbTx, userId: number) {
  return db.teamMember.findFirst({
    where: { userId, role: "owner" },
    include: { team: true },
    orderBy: { teamId: "asc" },
  });
}
