import type { DbTx } from "../db";
import type { UserCaller } from "../access/caller";
import { projectTeamAccess, requireTeam } from "../access/team-access";
import { apiKeyInclude, presentApiKey } from "./present-api-key";

/** The caller's own workspace keys and the project keys they made. */
export async function listMyKeys(db: DbTx, caller: UserCaller) {
  const keys = await db.apiKey.findMany({
    where: { ownerUserId: caller.userId },
    include: apiKeyInclude,
    orderBy: { createdAt: "desc" },
  });
  return keys.map(presentApiKey);
}

export async function listProjectKeys(db: DbTx, caller: UserCaller, tenantId: number) {
  requireTeam(
    await projectTeamAccess(db, caller, tenantId),
    "manageProjectKeys",
    "see the project's keys",
  );
  const keys = await db.apiKey.findMany({
    where: { tenantId },
    include: apiKeyInclude,
    orderBy: { createdAt: "desc" },
  });
  return keys.map(presentApiKey);
}
