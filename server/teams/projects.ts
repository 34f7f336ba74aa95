import { z } from "zod";
import type { Db, DbTx } from "../db";
import { DomainError } from "../errors";
import type { UserCaller } from "../access/caller";
import { requireTeam, teamAccess } from "../access/team-access";
import { isUniqueViolation } from "../lib/unique-violation";
import { nameSchema } from "./team-schema";

export const MAX_PROJECTS_PER_TEAM = 20;

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
    name: nameSchema.optional(),
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
