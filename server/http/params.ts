import { z } from "zod";
import { INT4_MAX, resourceId } from "../lib/int4";

/** Integer resource IDs in paths: digits only, within PostgreSQL's integer range. */
export const idParam = z
  .string()
  .regex(/^[0-9]{1,10}$/, "must be a positive integer")
  .describe(`an integer ID, 1 to ${INT4_MAX}`)
  .transform(Number)
  .pipe(resourceId);

export const tenantParams = z.object({ tenant_id: idParam });
export const stationParams = z.object({ tenant_id: idParam, station_id: idParam });
export const locationParams = z.object({ tenant_id: idParam, location_id: idParam });
export const teamParams = z.object({ team_id: idParam });
export const memberParams = z.object({ team_id: idParam, user_id: idParam });
export const inviteIdParam = z.string().regex(/^inv_[A-Za-z0-9]{1,60}$/, "must be an invite ID");
