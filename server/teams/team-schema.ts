import { z } from "zod";
import { TEAM_ROLES } from "../access/roles";

/** A team's or a project's name. */
export const nameSchema = z.string().trim().min(1).max(100);
export const teamRoleSchema = z.enum(TEAM_ROLES);
