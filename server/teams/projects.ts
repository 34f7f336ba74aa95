import { z } from "zod";
import type { Db, DbTx } from "../db";
import { DomainError, fieldError } from "../errors";
import { HOLD_MARGIN_MAX_MINOR, HOLD_MAX_MINOR, HOLD_MIN_MINOR } from "../bills/holds";
import type { TenantPrincipal, UserCaller } from "../access/caller";
import { requireTeam, teamAccess } from "../access/team-access";
import { isUniqueViolation } from "../lib/unique-violation";
import { nameSchema } from "./team-schema";
import { PLAN } from "../team-billing/plan";
import { projectLimit, requireNotSuspended } from "../team-billing/standing";

export const MAX_PROJECTS_PER_TEAM = PLAN.max_projects;

const holdMinor = z.number().int().min(HOLD_MIN_MINOR).max(HOLD_MAX_MINOR);
const holdMargin = z.number().int().min(0).max(HOLD_MARGIN_MAX_MINOR);

export const tenantSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  team_id: z.number().int(),
  authorization_mode: z.enum(["accept_all", "known_tokens"]),
  default_hold_minor: holdMinor.describe(
    "the hold (US cents) a bill gets when its creator names none; capped by a tariff's session cost cap",
  ),
  hold_margin_minor: holdMargin.describe(
    "live cap: a managed bill's charger is stopped once its running cost reaches hold_minor minus this (US cents)",
  ),
  created_at: z.string(),
});
type TenantRow = {
  id: number;
  name: string;
  teamId: number;
  authorizationMode: string;
  defaultHoldMinor: number;
  holdMarginMinor: number;
  createdAt: Date;
};
export const presentTenant = (t: TenantRow): z.infer<typeof tenantSchema> => ({
  id: t.id,
  name: t.name,
  team_id: t.teamId,
  authorization_mode: t.authorizationMode === "known_tokens" ? "known_tokens" : "accept_all",
  default_hold_minor: t.defaultHoldMinor,
  hold_margin_minor: t.holdMarginMinor,
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
      // the team's sandbox tenant is no project (server/sandbox/README.md)
      // team billing (server/team-billing/README.md): a suspended team makes no new project, and
      // one without a billing method on file has the plan's free number of them
      await requireNotSuspended(tx, teamId);
      const limit = await projectLimit(tx, teamId);
      const count = await tx.tenant.count({ where: { teamId, kind: "project" } });
      if (count >= limit) {
        throw new DomainError(
          "project_limit",
          limit < MAX_PROJECTS_PER_TEAM
            ? `This team has the ${limit} projects its plan includes; put a card or bank account on file (POST /v1/teams/${teamId}/billing/payment-method/setup) for up to ${MAX_PROJECTS_PER_TEAM}.`
            : `A team has at most ${MAX_PROJECTS_PER_TEAM} projects.`,
          {
            limit,
            max_projects: MAX_PROJECTS_PER_TEAM,
            billing_method_required: limit < MAX_PROJECTS_PER_TEAM,
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

/**
 * A project, for whoever works in it: a role holding no project scope (the billing role, which
 * reads only the team's billing profile, invoices and usage: spec section 5) is refused (403).
 */
export async function getTenant(db: DbTx, principal: TenantPrincipal) {
  if (principal.kind === "user" && principal.scopes.size === 0) {
    throw new DomainError(
      "forbidden",
      "Your role reads the team's billing only, not its projects.",
      {},
    );
  }
  return presentTenant(await db.tenant.findUniqueOrThrow({ where: { id: principal.tenantId } }));
}

export const updateTenantBody = z
  .object({
    name: nameSchema.optional(),
    authorization_mode: z.enum(["accept_all", "known_tokens"]).optional(),
    default_hold_minor: holdMinor.optional(),
    hold_margin_minor: holdMargin.optional(),
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
  const hold = input.default_hold_minor ?? tenant.defaultHoldMinor;
  const margin = input.hold_margin_minor ?? tenant.holdMarginMinor;
  if (margin >= hold)
    throw fieldError(
      "validation_failed",
      "hold_margin_minor must be below default_hold_minor, or a default hold stops its charger at once.",
      [
        {
          field: input.hold_margin_minor !== undefined ? "hold_margin_minor" : "default_hold_minor",
          message: `hold_margin_minor (${margin}) must be below default_hold_minor (${hold})`,
        },
      ],
    );
  try {
    const updated = await db.tenant.update({
      where: { id: tenantId },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.authorization_mode !== undefined
          ? { authorizationMode: input.authorization_mode }
          : {}),
        ...(input.default_hold_minor !== undefined
          ? { defaultHoldMinor: input.default_hold_minor }
          : {}),
        ...(input.hold_margin_minor !== undefined
          ? { holdMarginMinor: input.hold_margin_minor }
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
  const tenants = await db.tenant.findMany({
    where: { teamId, kind: "project" },
    orderBy: { id: "asc" },
  });
  return tenants.map(presentTenant);
}
