import { db as defaultDb, type Db } from "../db";
import { createApiKey, type CreatedApiKey } from "../keys/create-api-key";
import type { Scope } from "../access/scopes";

export type BootstrapProjectOptions = {
  email: string;
  teamName: string;
  projectName: string;
  scopes: Scope[];
  db?: Db;
};

export type BootstrapResult = {
  user_id: number;
  team_id: number;
  tenant_id: number;
  api_key: CreatedApiKey;
};

/**
 * Creates or reuses a user (by email), a team of that name the user owns, and a project (tenant) of
 * that name in the team; then creates a new project API key owned by the user. One transaction.
 */
export async function bootstrapProject({
  email,
  teamName,
  projectName,
  scopes,
  db = defaultDb(),
}: BootstrapProjectOptions): Promise<BootstrapResult> {
  const normalizedEmail = email.trim().toLowerCase();
  return db.$transaction(async (tx) => {
    // Serialize concurrent bootstraps of the same email so "create or reuse" stays one of each.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`bootstrap:${normalizedEmail}`}))`;
    const user = await tx.user.upsert({
      where: { email: normalizedEmail },
      update: {},
      create: { email: normalizedEmail },
    });
    const owned = await tx.teamMember.findFirst({
      where: { userId: user.id, role: "owner", team: { name: teamName } },
      orderBy: { teamId: "asc" },
    });
    const teamId =
      owned?.teamId ??
      (
        await tx.team.create({
          data: { name: teamName, members: { create: { userId: user.id, role: "owner" } } },
        })
      ).id;
    const tenant = await tx.tenant.upsert({
      where: { teamId_name: { teamId, name: projectName } },
      update: {},
      create: { teamId, name: projectName },
    });
    const apiKey = await createApiKey({
      tenantId: tenant.id,
      scopes,
      ownerUserId: user.id,
      name: "bootstrap",
      db: tx,
    });
    return { user_id: user.id, team_id: teamId, tenant_id: tenant.id, api_key: apiKey };
  });
}
