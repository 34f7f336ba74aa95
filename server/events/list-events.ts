import { z } from "zod";
import { db as defaultDb, type DbTx } from "../db";
import type { Scope } from "../access/scopes";
import { EVENT_TYPES } from "./event-types";
import { presentEvent } from "./present-event";

/** Event types that also need `billing:read` (spec section 6), from the one table of types. */
export const BILLING_EVENT_TYPES = Object.entries(EVENT_TYPES)
  .filter(([, scope]) => scope === "billing:read")
  .map(([type]) => type);

export const eventSchema = z.object({
  id: z.string(),
  sequence: z.number().int(),
  type: z.string(),
  tenant_id: z.number().int(),
  resource_id: z.string().nullable(),
  created_at: z.string(),
  data: z.record(z.string(), z.unknown()),
  station_id: z.number().int().optional(),
  station_sequence: z.number().int().optional(),
  occurred_at: z.string().nullable().optional(),
});

/**
 * A page of a sequence-ordered log from `limit + 1` rows: `next_cursor` is the last sequence
 * returned, or `after` itself on an empty page, so a reader can keep polling from it.
 */
export function sequencePage<R extends { sequence: number }, T>(
  rows: R[],
  limit: number,
  after: number,
  present: (row: R) => T,
) {
  const kept = rows.slice(0, limit);
  return {
    data: kept.map(present),
    next_cursor: kept.at(-1)?.sequence ?? after,
    has_more: rows.length > limit,
  };
}

export type ListEventsOptions = {
  tenantId: number;
  after: number;
  limit: number;
  /** exact types, and families as `payment.*` (every type starting `payment.`) */
  types?: string[];
  stationId?: number;
  /** `desc`: newest first; `after` 0 starts at the newest, else events with a lower sequence */
  order?: "asc" | "desc";
  /** events recorded at or after this instant (`created_at`) */
  createdFrom?: Date;
  /** events recorded before this instant */
  createdBefore?: Date;
  /** one resource's events (a payment's history), as `resource_id` shows it */
  resourceId?: string;
  scopes: Set<Scope>;
  db?: DbTx;
};

/** A `type` filter's where: exact types and `family.*` prefixes, never a hidden type. */
function typeWhere(types: string[] | undefined, hidden: string[]) {
  const notHidden = hidden.length ? { type: { notIn: hidden } } : {};
  if (!types?.length) return notHidden;
  const exact = types.filter((t) => !t.endsWith(".*") && !hidden.includes(t));
  const families = types.filter((t) => t.endsWith(".*")).map((t) => t.slice(0, -1));
  return {
    AND: [
      notHidden,
      {
        OR: [
          { type: { in: exact } },
          ...families.map((prefix) => ({ type: { startsWith: prefix } })),
        ],
      },
    ],
  };
}

/**
 * Events in `sequence` order after the cursor (or, `order` `desc`, newest first before it). Sequences are assigned under a per-tenant lock and
 * commit in order, so a reader continuing from `next_cursor` never misses a later commit.
 * `next_cursor` is the last sequence returned, or `after` itself on an empty page (keep polling).
 */
export async function listEvents({
  tenantId,
  after,
  limit,
  types,
  stationId,
  resourceId,
  order = "asc",
  createdFrom,
  createdBefore,
  scopes,
  db = defaultDb(),
}: ListEventsOptions) {
  const hidden = scopes.has("billing:read") ? [] : BILLING_EVENT_TYPES;
  const rows = await db.event.findMany({
    where: {
      tenantId,
      ...(order === "asc" ? { sequence: { gt: after } } : after ? { sequence: { lt: after } } : {}),
      ...typeWhere(types, hidden),
      ...(stationId ? { stationId } : {}),
      ...(resourceId ? { resourceId } : {}),
      ...(createdFrom || createdBefore
        ? {
            createdAt: {
              ...(createdFrom ? { gte: createdFrom } : {}),
              ...(createdBefore ? { lt: createdBefore } : {}),
            },
          }
        : {}),
    },
    orderBy: { sequence: order },
    take: limit + 1,
  });
  return sequencePage(rows, limit, after, (row) => presentEvent(row));
}
