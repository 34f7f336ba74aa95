import type { z } from "zod";
import { db as defaultDb, type Db } from "../db";
import { notFound } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { deriveStatus, loadSession, loadSessions, reconciliationReasons } from "./session-facts";
import type { listSessionsQuery } from "./session-schema";
import { publishObserved } from "./sync-status";

export type GetSessionOptions = { tenantId: number; sessionId: string; db?: Db };

/**
 * One of the tenant's sessions with its live usage (spec section 4, external sessions rule 3).
 * A status change no hook published yet is published by this read, once (delivery contract 9).
 */
export async function getSession({ tenantId, sessionId, db = defaultDb() }: GetSessionOptions) {
  const facts = await loadSession(db, { id: sessionId, tenantId });
  if (!facts) throw notFound("charging session");
  return publishObserved(db, facts);
}

export type ListSessionsOptions = {
  tenantId: number;
  query: z.infer<typeof listSessionsQuery>;
  db?: Db;
};

/**
 * A tenant's sessions, newest first (IDs are time-ordered), after the `after` session. `status`
 * and `needs_reconciliation` are derived, so they filter the page read, which is read ahead in
 * batches until it is full or the sessions run out.
 */
export async function listSessions({ tenantId, query, db = defaultDb() }: ListSessionsOptions) {
  const where: Prisma.ChargingSessionWhereInput = {
    tenantId,
    ...(query.source ? { source: query.source } : {}),
    ...(query.station_id ? { stationId: query.station_id } : {}),
    ...(query.connector_id ? { connectorId: query.connector_id } : {}),
    ...(query.application_reference ? { applicationReference: query.application_reference } : {}),
  };
  const kept: Awaited<ReturnType<typeof loadSessions>> = [];
  let after = query.after;
  let exhausted = false;
  while (kept.length <= query.limit && !exhausted) {
    const batch = await loadSessions(db, {
      where: { ...where, ...(after ? { id: { lt: after } } : {}) },
      orderBy: { id: "desc" },
      take: 100,
    });
    exhausted = batch.length < 100;
    after = batch.at(-1)?.row.id;
    for (const facts of batch) {
      if (query.status && deriveStatus(facts) !== query.status) continue;
      if (
        query.needs_reconciliation !== undefined &&
        reconciliationReasons(facts).length > 0 !== query.needs_reconciliation
      )
        continue;
      kept.push(facts);
    }
  }
  const page = kept.slice(0, query.limit);
  const data = [];
  for (const facts of page) data.push(await publishObserved(db, facts));
  return {
    data,
    next_cursor: kept.length > query.limit ? (page.at(-1)?.row.id ?? null) : null,
    has_more: kept.length > query.limit,
  };
}
