import { z } from "zod";
import { eventSchema, listEvents, type ListEventsOptions } from "../events/list-events";

/**
 * The workspace event log (`GET /v1/events`) is its sandbox tenant's event log: the same records
 * as `GET /v1/tenants/{sandbox_tenant_id}/events`, plus `team_id`. Events of the team itself
 * (`api_key.rate_limit_changed`, server/keys/set-rate-limit.ts) are appended there too, creating
 * the sandbox tenant on first use (`ensureSandboxTenant`); the migration `sandbox_core` moved the former `workspace_events` rows in, with their ids
 * and sequences.
 */
export const workspaceEventSchema = eventSchema.extend({
  team_id: z.number().int().describe("the workspace"),
});

export async function listWorkspaceEvents(
  options: ListEventsOptions & { teamId: number },
): Promise<{
  data: z.infer<typeof workspaceEventSchema>[];
  next_cursor: number;
  has_more: boolean;
}> {
  const page = await listEvents(options);
  return { ...page, data: page.data.map((e) => ({ ...e, team_id: options.teamId })) };
}
