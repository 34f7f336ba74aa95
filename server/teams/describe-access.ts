import { z } from "zod";
import type { DbTx } from "../db";
import { myTeams } from "./my-context";
import type { Caller } from "../access/caller";

export const accessSchema = z.object({
  principal: z.object({
    type: z.enum(["api_key", "user"]),
    key_id: z.string().nullable(),
    user_id: z.number().int().nullable(),
    api_version: z.string(),
    rate_limit_per_minute: z.number().int(),
  }),
  tenants: z.array(
    z.object({
      id: z.number().int(),
      team_id: z.number().int(),
      roles: z.array(z.string()),
      scopes: z.array(z.string()),
    }),
  ),
});

/** `GET /v1/access`: what the caller can reach. */
export async function describeAccess(
  db: DbTx,
  caller: Caller,
): Promise<z.infer<typeof accessSchema>> {
  const principal = {
    type: caller.kind,
    key_id: caller.kind === "api_key" ? caller.keyId : null,
    user_id: caller.kind === "user" ? caller.userId : caller.ownerUserId,
    api_version: caller.apiVersion,
    rate_limit_per_minute: caller.rateLimitPerMinute,
  };
  if (caller.kind === "api_key") {
    return {
      principal,
      tenants:
        caller.tenantId === null
          ? []
          : [
              {
                id: caller.tenantId,
                team_id: caller.teamId,
                roles: [],
                scopes: [...caller.scopes],
              },
            ],
    };
  }
  const teams = await myTeams(db, caller);
  return {
    principal,
    tenants: teams.flatMap((team) =>
      team.projects.map((project) => ({
        id: project.id,
        team_id: team.id,
        roles: [team.role, caller.platformRole].filter((r) => r !== null),
        scopes: project.scopes,
      })),
    ),
  };
}
