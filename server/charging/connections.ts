import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { appendEventsByTenant, type StationEvent, type TenantEvent } from "../events/append-event";
import { armListSyncs } from "../local-lists/auto-sync";
import { deadGatewayIds } from "./gateways";
import {
  writeCallBatch,
  type CallOutcome,
  type StationMessage,
} from "../charger-reports/call-batch";

export type ChargerContext = { stationId: number; tenantId: number; protocol: string };

/**
 * A station's connection: recorded as it opens (`connected`, at the moment the gateway accepted
 * it), and it is then its station's until it closes (`disconnected`) or a newer connection of the
 * station is recorded. Each recorded connect bumps `stations.connection_generation`; that number
 * is the connection's generation, and every later write of the connection (its disconnect, its
 * charger calls, its `last_seen`) names it and changes nothing once the station has moved on.
 */
export type ConnectionChange =
  | { kind: "connected"; station: { id: number; tenantId: number }; protocol: string; at: Date }
  | { kind: "disconnected"; station: { id: number; tenantId: number }; generation: number };

/**
 * For each change given: a connect's generation, or null when the connect came too late (the
 * station is held by another gateway's connection accepted after it, which stays); null for each
 * disconnect.
 */
export type ConnectionOutcomes = (number | null)[];

/**
 * A write of a connection that is no longer its station's: a newer connection was recorded, or
 * this one's disconnect already was. It records nothing; the gateway closes the connection.
 */
export class ConnectionReplaced extends Error {
  /** `generation` null: the connection never became the station's */
  constructor(stationId: number, generation: number | null) {
    super(
      generation === null
        ? `station ${stationId} has a newer connection; this one was never recorded`
        : `station ${stationId}'s connection ${generation} is no longer its current one`,
    );
    this.name = "ConnectionReplaced";
  }
}

/**
 * Locks the station row, first as `lockStation` does (the lock order at `appendEvent`), and checks
 * that the connection of `generation` is still the station's and online; throws
 * `ConnectionReplaced` when not (or when the station is gone). Every write a charger's call makes
 * passes here, so nothing a replaced connection sends lands after its `station.disconnected`.
 */
export async function lockConnection(tx: DbTx, stationId: number, generation: number) {
  const [row] = await tx.$queryRaw<{ current: boolean }[]>`
    SELECT connection_generation = ${generation} AND gateway_id IS NOT NULL AS current
      FROM stations WHERE id = ${stationId} FOR NO KEY UPDATE`;
  if (!row?.current) throw new ConnectionReplaced(stationId, generation);
}

/**
 * Several connects and disconnects of one gateway in one transaction, applied in the order given:
 * what one costs (a commit, the tenant's event counter taken and held to commit) is paid once for
 * the lot, and the writes are set-based (one statement per run of distinct stations, the events
 * of each tenant in three), so a gateway records a burst (a reconnect storm, a network blip) many
 * times faster. Every station row is locked first, in id order, and the counters after them,
 * tenant by tenant (the lock order at `appendEvent`: a transaction appending events of several
 * stations locks them all first). Retried whole after a deadlock or serialization failure.
 *
 * Per station, the log reads connected, (its calls), disconnected, connected…, never two connects
 * in a row and no disconnect lost:
 * - a connect makes the connection the station's (a new generation). If the station was still
 *   online with an older connection, that one ends here: its `station.disconnected` is written
 *   first, and its own late close then changes nothing. A connect whose station is online with
 *   another gateway's connection accepted after it (by the gateways' clocks) is too late and
 *   changes nothing (its outcome is null; the gateway closes that socket). Within one gateway
 *   connects arrive here in the order they were accepted (the recorder keeps each station's order),
 *   so no clock is compared;
 * - a disconnect ends its own generation only, if it is still the station's and online.
 * A connect whose station no longer exists fails the whole call (the recorder then records its
 * changes one by one).
 *
 * `rides`: a new connection's first charger call (BootNotification or StatusNotification) that
 * arrived while its connect was still waiting, recorded in the same transaction right after the
 * connects (`writeCallBatch`, on the generation its connect got; its events after the connects'),
 * so a new charger's connect and boot cost one commit, not two in a row. Each ride's outcome is its
 * answer, or `perMessage` (its connect got no generation, or its station changes twice in this
 * call): the caller records that one alone once its connect is known.
 */
export async function recordConnectionChanges(
  db: Db,
  gatewayId: string,
  changes: readonly ConnectionChange[],
  rides: readonly Ride[] = [],
): Promise<ConnectionOutcomes & { rides?: CallOutcome[] }> {
  const ids = [...new Set(changes.map((c) => c.station.id))].sort((a, b) => a - b);
  return inTransaction(
    db,
    async (tx) => {
      await tx.$queryRaw`/* prepared */ SELECT id FROM stations WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
      const events: TenantEvent[] = [];
      const outcomes = new Map<ConnectionChange, number | null>();
      for (const run of runsOfDistinctStations(changes))
        for (const { change, event } of await applyRun(tx, gatewayId, run, outcomes))
          events.push({ tenantId: change.station.tenantId, event });
      const result: ConnectionOutcomes & { rides?: CallOutcome[] } = changes.map(
        (c) => outcomes.get(c) ?? null,
      );
      // Before the events: the counter, taken by their append, is held only to the commit.
      if (rides.length) result.rides = await recordRides(tx, changes, outcomes, rides, events);
      await appendEventsByTenant(tx, events);
      return result;
    },
    { maxWait: 10_000, timeout: 30_000 },
  );
}

/** A charger call that goes with its connection's connect (`recordConnectionChanges`). */
export type Ride = { connect: ConnectionChange; message: StationMessage };

/**
 * The rides' writes, after the connects (their stations are locked already); their events go to
 * `events` after the connects', so each station's log reads connected, then its first call.
 */
async function recordRides(
  tx: DbTx,
  changes: readonly ConnectionChange[],
  outcomes: Map<ConnectionChange, number | null>,
  rides: readonly Ride[],
  events: TenantEvent[],
): Promise<CallOutcome[]> {
  const changesOf = new Map<number, number>();
  for (const c of changes) changesOf.set(c.station.id, (changesOf.get(c.station.id) ?? 0) + 1);
  const result: CallOutcome[] = rides.map(() => ({ perMessage: true }));
  const riding: { i: number; generation: number }[] = [];
  rides.forEach((ride, i) => {
    const generation = outcomes.get(ride.connect);
    if (
      ride.connect.kind === "connected" &&
      generation != null &&
      changesOf.get(ride.connect.station.id) === 1 &&
      ride.message.charger.stationId === ride.connect.station.id
    )
      riding.push({ i, generation });
  });
  if (riding.length === 0) return result;
  // Their stations are locked (above, FOR UPDATE), each on the generation its connect just got.
  const current = new Map(
    riding.map(({ i, generation }) => [rides[i]!.connect.station.id, generation]),
  );
  const done = await writeCallBatch(
    tx,
    riding.map(({ i, generation }) => ({ ...rides[i]!.message, generation })),
    events,
    current,
  );
  riding.forEach(({ i }, j) => (result[i] = done[j]!));
  return result;
}

/** The changes cut, in order, into runs where each station appears at most once. */
function runsOfDistinctStations(changes: readonly ConnectionChange[]) {
  const runs: ConnectionChange[][] = [];
  let run: ConnectionChange[] = [];
  let seen = new Set<number>();
  for (const change of changes) {
    if (seen.has(change.station.id)) {
      runs.push(run);
      run = [];
      seen = new Set();
    }
    seen.add(change.station.id);
    run.push(change);
  }
  if (run.length) runs.push(run);
  return runs;
}

const disconnectedEvent = (stationId: number, lastSeen: Date | null): StationEvent => ({
  type: "station.disconnected",
  resourceId: stationId,
  station: { id: stationId, occurredAt: null },
  data: { station_id: stationId, online: false, last_seen: lastSeen?.toISOString() ?? null },
});

/**
 * One run's writes (two statements at most); the events of the changes that applied, in order.
 * Each connect's generation (or null) goes to `outcomes`.
 */
async function applyRun(
  tx: DbTx,
  gatewayId: string,
  run: readonly ConnectionChange[],
  outcomes: Map<ConnectionChange, number | null>,
) {
  const connects = run.filter((c) => c.kind === "connected");
  const disconnects = run.filter((c) => c.kind === "disconnected");
  const applied = new Map<ConnectionChange, StationEvent[]>();
  if (connects.length) {
    // `before` reads the rows as the statement found them (locked above), `moved` writes them.
    const rows = await tx.$queryRaw<
      {
        id: number;
        replaced: boolean;
        last_seen_at: Date | null;
        generation: number | null;
        keeps_list: boolean;
      }[]
    >`/* prepared */
      WITH c AS (
        SELECT * FROM unnest(${connects.map((c) => c.station.id)}::int[],
                             ${connects.map((c) => c.protocol)}::text[],
                             ${connects.map((c) => c.at.toISOString())}::timestamptz[])
                 AS c(id, protocol, at)),
      before AS (
        SELECT s.id, s.gateway_id IS NOT NULL AS online, s.last_seen_at,
               s.local_list_version > 0 AS keeps_list
          FROM stations s JOIN c ON c.id = s.id),
      moved AS (
        UPDATE stations s
           SET gateway_id = ${gatewayId}, protocol = c.protocol, connected_at = c.at,
               last_seen_at = c.at, connection_generation = s.connection_generation + 1,
               updated_at = now()
          FROM c
         WHERE s.id = c.id
           AND (s.gateway_id IS NULL OR s.gateway_id = ${gatewayId} OR s.connected_at <= c.at)
        RETURNING s.id, s.connection_generation)
      SELECT before.id, moved.id IS NOT NULL AND before.online AS replaced, before.last_seen_at,
             moved.connection_generation AS generation, before.keeps_list
        FROM before LEFT JOIN moved ON moved.id = before.id`;
    if (rows.length !== connects.length)
      throw new Error("a connected station no longer exists; its connect cannot be recorded");
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const c of connects) {
      const row = byId.get(c.station.id)!;
      outcomes.set(c, row.generation);
      if (row.generation === null) continue;
      const connected: StationEvent = {
        type: "station.connected",
        resourceId: c.station.id,
        station: { id: c.station.id, occurredAt: null },
        data: { station_id: c.station.id, online: true, last_seen: c.at.toISOString() },
      };
      applied.set(
        c,
        row.replaced ? [disconnectedEvent(c.station.id, row.last_seen_at), connected] : [connected],
      );
    }
    // A station back online catches up on the token changes it missed (server/local-lists). Only
    // one that keeps a list has a sync to arm (the test `armListSyncs` applies, read here under
    // the lock above): a new charger's connect skips the statement.
    await armListSyncs(tx, {
      stationIds: rows.filter((r) => r.generation !== null && r.keeps_list).map((r) => r.id),
    });
  }
  if (disconnects.length) {
    // Only the connection that is still the station's, and online, goes offline.
    const rows = await tx.$queryRaw<{ id: number; last_seen_at: Date | null }[]>`/* prepared */
      UPDATE stations s SET gateway_id = NULL, updated_at = now()
        FROM unnest(${disconnects.map((c) => c.station.id)}::int[],
                    ${disconnects.map((c) => c.generation)}::int[]) AS d(id, generation)
       WHERE s.id = d.id AND s.gateway_id = ${gatewayId}
         AND s.connection_generation = d.generation
      RETURNING s.id, s.last_seen_at`;
    const lastSeen = new Map(rows.map((r) => [r.id, r.last_seen_at]));
    for (const c of disconnects)
      if (lastSeen.has(c.station.id))
        applied.set(c, [disconnectedEvent(c.station.id, lastSeen.get(c.station.id)!)]);
  }
  return run.flatMap((change) => (applied.get(change) ?? []).map((event) => ({ change, event })));
}

/** Changes one transaction records at most: a gateway's recorder batches alike. */
export const CONNECTION_BATCH_SIZE = 100;

/**
 * Stations still held by these gateways go offline, with their events, in batches of one
 * gateway's stations of one tenant (`recordConnectionChanges`): a gateway's thousands of stations
 * cost tens of transactions, not thousands. Each change names the connection it ends (its
 * generation), so a station another gateway took meanwhile stays online. Every batch is tried; a
 * failure is thrown after.
 */
export async function releaseStationsOf({ db, gatewayIds }: { db: Db; gatewayIds: string[] }) {
  const stations = await db.station.findMany({
    where: { gatewayId: { in: gatewayIds } },
    select: { id: true, tenantId: true, gatewayId: true, connectionGeneration: true },
    orderBy: { id: "asc" },
  });
  const groups = new Map<string, { gatewayId: string; changes: ConnectionChange[] }>();
  for (const { id, tenantId, gatewayId, connectionGeneration: generation } of stations) {
    if (!gatewayId) continue;
    const key = `${gatewayId}/${tenantId}`;
    const group = groups.get(key) ?? { gatewayId, changes: [] };
    group.changes.push({ kind: "disconnected", station: { id, tenantId }, generation });
    groups.set(key, group);
  }
  const failures: unknown[] = [];
  for (const { gatewayId, changes } of groups.values())
    for (let i = 0; i < changes.length; i += CONNECTION_BATCH_SIZE)
      await recordConnectionChanges(
        db,
        gatewayId,
        changes.slice(i, i + CONNECTION_BATCH_SIZE),
      ).catch((error: unknown) => failures.push(error));
  if (failures.length) throw new AggregateError(failures, "recording disconnects failed");
  return stations.length;
}

/** Stations held by gateways that are not alive (`./gateways`) go offline, with their events. */
export async function releaseDeadGateways({ db }: { db: Db }) {
  return releaseStationsOf({ db, gatewayIds: await deadGatewayIds(db) });
}
