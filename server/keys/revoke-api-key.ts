import { db as defaultDb, type DbTx } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { projectTeamAccess, requireTeam } from "../access/team-access";
import { apiKeyInclude } from "./present-api-key";

export type RevokeApiKeyOptions = {
  keyId: string;
  /** only a key of this project: a key of another project reads as unknown */
  tenantId?: number;
  /**
   * A signed-in person: their own key, or (with `tenantId`) any key of a project whose keys they
   * manage. Absent for the operator's command line, which may revoke any key.
   */
  caller?: UserCaller;
  db?: DbTx;
};

/**
 * Revokes a key; it is refused from its next request. Revoking a revoked key changes nothing and
 * answers the same record. An unknown key, or one the caller may not see, is 404 `not_found`.
 */
export async function revokeApiKey({
  keyId,
  tenantId,
  caller,
  db = defaultDb(),
}: RevokeApiKeyOptions) {
  const key = await db.apiKey.findUnique({ where: { id: keyId }, include: apiKeyInclude });
  const notFound = new DomainError("not_found", "No such API key.", { resource: "api_key" });
  if (!key || (tenantId !== undefined && key.tenantId !== tenantId)) throw notFound;
  if (caller && tenantId !== undefined) {
    requireTeam(
      await projectTeamAccess(db, caller, tenantId),
      "manageProjectKeys",
      "revoke the project's keys",
    );
  } else if (caller && key.ownerUserId !== caller.userId) {
    throw notFound;
  }
  if (key.revokedAt) return key;
  return db.apiKey.update({
    where: { id: keyId },
    data: { revokedAt: new Date() },
    include: apiKeyInclude,
  });
}
