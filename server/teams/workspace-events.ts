import { z } from "zod";
import type { DbTx } from "../db";
import { DomainError } from "../errors";
import type { Prisma, WorkspaceEvent } from "../generated/prisma/client";
import type { Caller } from "../access/caller";
import { newId } from "../lib/ids";
import { ownedWorkspace } from "./workspace";
import { sequencePage } from "../events/list-events";

/**
 * A team's workspace event log (`GET /v1/events`): what happens to the team itself rather than to
 * one of its projects, such as a change to one of its keys' rate limits. Sandbox sessions will
 * write here too.
 */

export const workspaceEventSchema = z.object({
  id: z.string(),
  sequence: z.number().int().describe("per workspace, gap-free, in commit order"),
  type: z.string(),
  team_id: z.number().int(),
  created_at: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type WorkspaceEventResource = z.infer<typeof workspaceEventSchema>;

export function presentWorkspaceEvent(row: WorkspaceEvent): WorkspaceEventResource {
  return {
    id: row.id,
    sequence: row.sequence,
    type: row.type,
    team_id: row.teamId,
    created_at: row.createdAt.toISOString(),
    data: row.data as Record<string, unknown>,
  };
}

/**
 * Appends an event in the caller's transaction. The per-team lock is held until that transaction
 * commits, so sequences commit in order and a reader continuing from `next_cursor` never skips one.
 */
export async function appendWorkspaceEvent(
  db: DbTx,
  { teamId, type, data }: { teamId: number; type: string; data: Record<string, unknown> },
) {
  await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`workspace-events:${teamId}`}))`;
  const last = await db.workspaceEvent.aggregate({
    where: { teamId },
    _max: { sequence: true },
  });
  return db.workspaceEvent.create({
    data: {
      id: newId("evt"),
      teamId,
      sequence: (last._max.sequence ?? 0) + 1,
      type,
      data: data as Prisma.InputJsonObject,
    },
  });
}

/**
 * Whose workspace a caller reads: a workspace key's team (it needs `sandbox:read`), or the
 * signed-in person's own workspace, the oldest team they own (as `POST /v1/workspace` answers).
 * Project keys read their project's log instead; a person who owns no team has no workspace.
 */
export async function workspaceOf(db: DbTx, caller: Caller): Promise<number> {
  if (caller.kind === "api_key") {
    if (caller.tenantId !== null) {
      throw new DomainError(
        "forbidden",
        "A project key reads its project's events at /v1/tenants/{tenant_id}/events; workspace events need a workspace key.",
        { key_id: caller.keyId, tenant_id: caller.tenantId },
      );
    }
    if (!caller.grantedScopes.includes("sandbox:read")) {
      throw new DomainError("insufficient_scope", "This API key lacks the scope sandbox:read.", {
        required_scopes: ["sandbox:read"],
        missing_scopes: ["sandbox:read"],
      });
    }
    return caller.teamId;
  }
  const owned = await ownedWorkspace(db, caller.userId);
  if (!owned) {
    throw new DomainError(
      "no_grant",
      "You own no workspace yet: create one with POST /v1/workspace.",
      {},
    );
  }
  return owned.teamId;
}

/** Events after the cursor in sequence order, paged like the tenant log. */
export async function listWorkspaceEvents(
  db: DbTx,
  { teamId, after, limit }: { teamId: number; after: number; limit: number },
) {
  const rows = await db.workspaceEvent.findMany({
    where: { teamId, sequence: { gt: after } },
    orderBy: { sequence: "asc" },
    take: limit + 1,
  });
  return sequencePage(rows, limit, after, presentWorkspaceEvent);
}
