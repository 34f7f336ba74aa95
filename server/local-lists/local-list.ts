import { z } from "zod";
import type { TenantPrincipal } from "../access/caller";
import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import { DomainError, notFound } from "../errors";
import { Prisma } from "../generated/prisma/client";
import { createOperation } from "../operations/create-operation";

/** One token as a charger's local list holds it. */
export const listEntry = z.object({
  status: z.enum(["Accepted", "Blocked"]),
  expires_at: z.string().nullable(),
});
export type ListEntry = z.infer<typeof listEntry>;
/** A whole list: token → entry. */
export const localListSchema = z.record(z.string(), listEntry);
export type LocalList = z.infer<typeof localListSchema>;

/** One change sent: a token with its entry, or a removal (`entry: null`, differential only). */
export type ListChange = { token: string; entry: ListEntry | null };

/** OCPP 1.6 idTag holds at most 20 characters: longer tokens stay off every list. */
export const MAX_LIST_TOKEN_LENGTH = 20;

export const SEND_SCOPE = "station.local_list_send";
export const VERSION_SCOPE = "station.local_list_version";

export const sendRequest = z.object({
  update_type: z.enum(["full", "differential"]),
  version: z.number().int(),
  /** the version the differential applies to (the charger's confirmed one) */
  base_version: z.number().int(),
  changes: z.array(z.object({ token: z.string(), entry: listEntry.nullable() })),
  /** the list the charger holds once it accepted */
  list: localListSchema,
  /** a full update sent because a differential was refused: never falls back again */
  fallback_for: z.string().nullable(),
});
export type SendRequest = z.infer<typeof sendRequest>;

/**
 * The list the service wants every station of the tenant to hold: the tokens it issued that are
 * still valid (`Accepted`, with their expiry) and those the operator blocked (`Blocked`), from
 * `authorization_tokens`. Expired tokens are left off (a charger answers an unknown token by its
 * own rules, and the service `Expired` online).
 */
export async function desiredList(
  tx: DbTx,
  tenantId: number,
  now = new Date(),
): Promise<LocalList> {
  const rows = await tx.authorizationToken.findMany({
    where: {
      tenantId,
      OR: [{ blockedAt: { not: null } }, { expiresAt: null }, { expiresAt: { gt: now } }],
    },
    orderBy: { token: "asc" },
  });
  const list: LocalList = {};
  for (const r of rows) {
    if (r.token.length > MAX_LIST_TOKEN_LENGTH) continue;
    list[r.token] = r.blockedAt
      ? { status: "Blocked", expires_at: null }
      : { status: "Accepted", expires_at: r.expiresAt?.toISOString() ?? null };
  }
  return list;
}

/** What turns `from` into `to`: changed and new tokens, then removals. */
export function listDifference(from: LocalList, to: LocalList): ListChange[] {
  const changes: ListChange[] = [];
  for (const [token, entry] of Object.entries(to)) {
    const had = from[token];
    if (!had || had.status !== entry.status || had.expires_at !== entry.expires_at)
      changes.push({ token, entry });
  }
  for (const token of Object.keys(from)) if (!(token in to)) changes.push({ token, entry: null });
  return changes;
}

/**
 * Writes the send of a station's next list version, in the caller's transaction (station row
 * locked first). One send is in flight per station (409 `local_list_busy` otherwise), so versions
 * go to a charger in order, each the confirmed one plus one, never skipping. A differential
 * needs a list the charger is known to hold; without one (never sent, an unconfirmed send, a
 * version that differs) the send is full.
 */
export async function writeListSend({
  db,
  tenantId,
  stationId,
  updateType,
  apiKeyId,
  fallbackFor = null,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  updateType: "full" | "differential";
  apiKeyId: string | null;
  fallbackFor?: string | null;
}) {
  await lockStation(db, stationId);
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    select: { localListVersion: true, localList: true },
  });
  if (!station) throw notFound("station");
  const busy = await db.operation.findFirst({
    where: { stationId, scope: SEND_SCOPE, status: "dispatching" },
    select: { id: true },
  });
  if (busy)
    throw new DomainError(
      "local_list_busy",
      "A local list version is still being sent to this station; wait for its outcome.",
      { operation_id: busy.id },
    );
  const held = station.localList === null ? null : localListSchema.parse(station.localList);
  const list = await desiredList(db, tenantId);
  const type = updateType === "differential" && held ? "differential" : "full";
  const changes =
    type === "full"
      ? Object.entries(list).map(([token, entry]) => ({ token, entry }))
      : listDifference(held!, list);
  const request: SendRequest = {
    update_type: type,
    version: station.localListVersion + 1,
    base_version: station.localListVersion,
    changes,
    list,
    fallback_for: fallbackFor,
  };
  return createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId,
    scope: SEND_SCOPE,
    action: "send_local_list",
    request,
  });
}

async function tenantStation(db: DbTx, tenantId: number, stationId: number) {
  const station = await db.station.findFirst({ where: { id: stationId, tenantId } });
  if (!station) throw notFound("station");
  return station;
}

/** POST …/local-list: sends the next version (differential unless `full` is asked or needed). */
export async function sendLocalList({
  db,
  tenantId,
  stationId,
  updateType,
  principal,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  updateType: "full" | "differential";
  principal: TenantPrincipal;
}) {
  await tenantStation(db, tenantId, stationId);
  return writeListSend({ db, tenantId, stationId, updateType, apiKeyId: principal.actorId });
}

/** POST …/local-list/version: asks the charger which version it holds (GetLocalListVersion). */
export async function readLocalListVersion({
  db,
  tenantId,
  stationId,
  principal,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  principal: TenantPrincipal;
}) {
  await tenantStation(db, tenantId, stationId);
  return createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId: principal.actorId,
    scope: VERSION_SCOPE,
    action: "get_local_list_version",
    request: {},
  });
}

export const localListStateSchema = z.object({
  version: z.number().int().describe("the version the charger confirmed last (0: none sent)"),
  synced_at: z.string().nullable().describe("when the charger confirmed it"),
  in_step: z
    .boolean()
    .describe(
      "whether the service knows the list the charger holds; when false the next send is full",
    ),
  entries: z.number().int().describe("tokens on the list the charger holds (0 when not in step)"),
  pending_operation_id: z.string().nullable().describe("a send still in flight"),
  tokens: z
    .array(z.object({ token: z.string(), status: z.string(), expires_at: z.string().nullable() }))
    .describe("the list the charger holds, when in step"),
});
export type LocalListState = z.infer<typeof localListStateSchema>;

/** GET …/local-list: the station's list state. */
export async function getLocalListState(
  db: DbTx,
  tenantId: number,
  stationId: number,
): Promise<LocalListState> {
  const station = await tenantStation(db, tenantId, stationId);
  const pending = await db.operation.findFirst({
    where: { stationId, scope: SEND_SCOPE, status: "dispatching" },
    select: { id: true },
  });
  const held = station.localList === null ? null : localListSchema.parse(station.localList);
  return {
    version: station.localListVersion,
    synced_at: station.localListSyncedAt?.toISOString() ?? null,
    in_step: held !== null,
    entries: held ? Object.keys(held).length : 0,
    pending_operation_id: pending?.id ?? null,
    tokens: held ? Object.entries(held).map(([token, e]) => ({ token, ...e })) : [],
  };
}

/** Forgets the list a station holds: its next send is full. */
export async function forgetHeldList(tx: DbTx, stationId: number) {
  await tx.station.update({ where: { id: stationId }, data: { localList: Prisma.DbNull } });
}
