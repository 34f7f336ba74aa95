import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { gatewayAlive } from "../charging/gateways";
import { chargingProfileSet, type SetRequest } from "../charging-profiles/operation-kinds";
import { profileIssues, type NeutralProfile } from "../charging-profiles/profile-schema";
import { newId } from "../lib/ids";
import { createOperation } from "../operations/create-operation";
import { appendEvent } from "../events/append-event";
import { plan, type ProfileState, type Session } from "./allocate";
import type { ConnectorOverride } from "./limit-schema";
import { readPowerLimitState } from "./power-limit-state";
import { recomputeTarget } from "./trigger";
import { enqueue } from "../jobs/enqueue";

/** The OCPP chargingProfileId of a connector's site-limit TxProfile: this plus its 1.6 number. */
export const SITE_LIMIT_PROFILE_BASE = 1_000_000;
/** The stack level of the site-limit TxProfiles. */
export const SITE_LIMIT_STACK_LEVEL = 9;
export const SITE_LIMIT_SOURCE = "site_limit";

type LimitRow = {
  location_id: number;
  tenant_id: number;
  max_power_w: number;
  voltage_v: number;
  min_power_w: number;
  connector_max_power_w: number;
  phases: number;
  overrides: ConnectorOverride[];
  band_min_deci_a: number;
  band_percent: number;
};

type OpenSession = {
  transaction_id: number;
  connector_id: number;
  station_id: number;
  connector_number: number;
  started_at: Date;
  power_kw: string | null;
  online: boolean;
  evse_number: number;
  reference: string;
};

type AllocationRow = {
  connector_id: number;
  transaction_id: number;
  allocated_w: number;
  allocated_deci_a: number;
  sent_w: number | null;
  sent_deci_a: number | null;
  believed_w: number;
  confirmed: boolean;
  held_back_w: number;
  draw_w: number | null;
  min_power_w: number;
  max_power_w: number;
  phases: number;
  profile_state: string | null;
  profile_status: string | null;
  profile_tx: string | null;
};

/** The connector's minimum, maximum and phases: the limit's defaults, or its override. */
export function connectorConfig(limit: LimitRow, connectorId: number) {
  const o = limit.overrides.find((x) => x.connector_id === connectorId);
  return {
    minW: o?.min_power_w ?? limit.min_power_w,
    maxW: o?.max_power_w ?? limit.connector_max_power_w,
    phases: (o?.phases ?? limit.phases) as 1 | 3,
  };
}

/**
 * Recomputes a location's shares and sends what changed (README.md): one transaction, which locks
 * the limit row first (so one recomputation of a location runs at a time; the limit row comes
 * before stations in the lock order) and the stations it sends to (in id order, `sendShares`), and
 * appends `location.power_allocation_changed` last when a share changed. Nothing is sent from
 * here: the operations it creates are dispatched after commit. `job`: the job running it; the
 * location's other queued recomputations are dropped first, since this one reads after they were
 * committed and so covers them. When another recomputation holds the limit row, a follow-up is
 * enqueued instead (`followUp`: this is one, and waits for the lock).
 */
export async function recomputeLocation(
  db: Db,
  locationId: number,
  job?: { jobId: string; followUp: boolean },
) {
  if (job)
    await db.$executeRaw`
      DELETE FROM jobs
       WHERE name = ${recomputeTarget.id} AND status = 'queued' AND id <> ${job.jobId}
         AND payload->>'locationId' = ${String(locationId)}`;
  const done = await inTransaction(db, (tx) => recomputeIn(tx, locationId, !job?.followUp), {
    timeout: 30_000,
  });
  if (done !== "busy") return done;
  // Another recomputation holds the location: one follow-up runs after it (every request arriving
  // meanwhile names the same one, by the count it will commit), reading what it did not see.
  const [row] = await db.$queryRaw<{ computed_count: number }[]>`
    SELECT computed_count FROM site_power_limits WHERE location_id = ${locationId}`;
  if (row)
    await enqueue(
      db,
      recomputeTarget,
      { locationId, after: row.computed_count },
      { key: `${locationId}:after:${row.computed_count}` },
    );
  return { sent: 0, changed: false };
}

async function recomputeIn(tx: DbTx, locationId: number, skipWhenBusy: boolean) {
  const [limit] = skipWhenBusy
    ? await tx.$queryRaw<LimitRow[]>`
        SELECT location_id, tenant_id, max_power_w, voltage_v, min_power_w, connector_max_power_w,
               phases, overrides, band_min_deci_a, band_percent
          FROM site_power_limits WHERE location_id = ${locationId} FOR UPDATE SKIP LOCKED`
    : await tx.$queryRaw<LimitRow[]>`
        SELECT location_id, tenant_id, max_power_w, voltage_v, min_power_w, connector_max_power_w,
               phases, overrides, band_min_deci_a, band_percent
          FROM site_power_limits WHERE location_id = ${locationId} FOR UPDATE`;
  if (!limit) {
    if (!skipWhenBusy) return { sent: 0, changed: false };
    const [exists] = await tx.$queryRaw<{ n: number }[]>`
      SELECT 1 AS n FROM site_power_limits WHERE location_id = ${locationId}`;
    return exists ? ("busy" as const) : { sent: 0, changed: false };
  }
  await tx.$executeRaw`
    UPDATE site_power_limits SET computed_count = computed_count + 1
     WHERE location_id = ${locationId}`;
  // the running session of each covered connector (the latest, should a stale one be left open)
  const open = await tx.$queryRaw<OpenSession[]>`
    SELECT DISTINCT ON (t.connector_id)
           t.id AS transaction_id, t.connector_id, t.station_id, c.connector_number,
           e.evse_number, t.reference,
           COALESCE(t.started_at, t.created_at) AS started_at, s.gateway_id IS NOT NULL AS online,
           (SELECT m.power_kw FROM meter_samples m
             WHERE m.transaction_id = t.id AND m.power_kw IS NOT NULL
             ORDER BY m.sampled_at DESC LIMIT 1) AS power_kw
      FROM stations s
      JOIN site_power_limits l ON l.location_id = s.location_id
      JOIN transactions t ON t.station_id = s.id AND t.ended_at IS NULL
      JOIN connectors c ON c.id = t.connector_id
      JOIN evses e ON e.id = c.evse_id
     WHERE s.location_id = ${locationId} AND (l.covers_all OR s.id = ANY(l.station_ids))
     ORDER BY t.connector_id, COALESCE(t.started_at, t.created_at) DESC`;
  const existing = await tx.$queryRaw<AllocationRow[]>`
    SELECT a.connector_id, a.transaction_id, a.allocated_w, a.allocated_deci_a, a.sent_w,
           a.sent_deci_a, a.believed_w, a.confirmed, a.held_back_w, a.draw_w,
           a.min_power_w, a.max_power_w, a.phases,
           cp.state AS profile_state, cp.charger_status AS profile_status, cp.profile->'transaction'->>'id' AS profile_tx
      FROM site_power_allocations a
      LEFT JOIN charging_profiles cp
        ON cp.station_id = a.station_id AND cp.charging_profile_id = a.charging_profile_id
     WHERE a.location_id = ${locationId}`;
  const before = new Map(existing.map((r) => [r.connector_id, r]));

  const sessions: (Session & { o: OpenSession })[] = open.map((o) => {
    const cfg = connectorConfig(limit, o.connector_id);
    const row = before.get(o.connector_id);
    const same = row && row.transaction_id === o.transaction_id;
    const drawW = o.power_kw === null ? null : Math.round(Number(o.power_kw) * 1000);
    let state: ProfileState | null = null;
    let believedW = cfg.maxW;
    let sentDeciA: number | null = null;
    let confirmed = false;
    if (same) {
      believedW = row.believed_w;
      confirmed = row.confirmed;
      sentDeciA = row.sent_deci_a;
      if (row.sent_w !== null && row.profile_tx === String(o.transaction_id)) {
        state = (row.profile_state as ProfileState | null) ?? null;
        if (state === "rejected" && row.profile_status === null) {
          // never delivered (the station was offline, or the charger's protocol refused it): the
          // charger runs on what it had; sent again once it is online
          state = null;
          sentDeciA = null;
        } else if (state === "installed") {
          believedW = row.sent_w;
          confirmed = true;
        } else if (state === "unknown") believedW = Math.max(row.believed_w, row.sent_w);
        else if (state !== "pending" && state !== "rejected") state = null; // replaced or cleared
      }
    }
    return {
      key: o.connector_id,
      startedAt: o.started_at,
      drawW,
      state,
      sentDeciA,
      believedW,
      confirmed,
      online: o.online,
      ...cfg,
      o,
    };
  });

  const p = plan(limit.max_power_w, limit.voltage_v, sessions, {
    minA: limit.band_min_deci_a / 10,
    fraction: limit.band_percent / 100,
  });
  const sends = new Map(p.send.map((s) => [s.key, s]));
  let changed = existing.length !== sessions.length;

  // rows of sessions that ended or are no longer covered
  const keep = sessions.map((s) => s.key);
  await tx.sitePowerAllocation.deleteMany({
    where: { locationId, connectorId: { notIn: keep } },
  });
  for (const s of sessions) {
    const share = p.shares.find((x) => x.key === s.key)!;
    const send = sends.get(s.key);
    const row = before.get(s.key);
    if (
      !row ||
      row.transaction_id !== s.o.transaction_id ||
      row.allocated_w !== share.allocatedW ||
      row.held_back_w !== share.heldBackW
    )
      changed = true;
    const fields = {
      tenantId: limit.tenant_id,
      locationId,
      stationId: s.o.station_id,
      transactionId: s.o.transaction_id,
      transactionStart: s.startedAt,
      chargingProfileId: SITE_LIMIT_PROFILE_BASE + s.o.connector_number,
      minPowerW: s.minW,
      maxPowerW: s.maxW,
      phases: s.phases,
      allocatedW: share.allocatedW,
      allocatedDeciA: share.deciA,
      believedW: s.believedW,
      confirmed: s.confirmed,
      heldBackW: share.heldBackW,
      drawW: s.drawW,
      ...(send
        ? { sentW: send.w, sentDeciA: send.deciA }
        : row && row.transaction_id === s.o.transaction_id
          ? {}
          : { sentW: null, sentDeciA: null }),
    };
    const same =
      row &&
      row.transaction_id === s.o.transaction_id &&
      !send &&
      row.allocated_w === share.allocatedW &&
      row.allocated_deci_a === share.deciA &&
      row.held_back_w === share.heldBackW &&
      row.believed_w === s.believedW &&
      row.confirmed === s.confirmed &&
      row.draw_w === s.drawW &&
      row.min_power_w === s.minW &&
      row.max_power_w === s.maxW &&
      row.phases === s.phases;
    if (!same)
      await tx.sitePowerAllocation.upsert({
        where: { connectorId: s.key },
        create: { connectorId: s.key, ...fields },
        update: fields,
      });
  }
  const sent = await sendShares(tx, limit.tenant_id, sessions, sends);
  if (sent.ended.length) {
    // ended since they were read (each end asked for another recomputation): their rows go
    await tx.sitePowerAllocation.deleteMany({
      where: { connectorId: { in: sent.ended } },
    });
    changed = true;
  }
  if (changed) {
    const state = await readPowerLimitState(tx, limit.tenant_id, locationId);
    if (state)
      await appendEvent({
        db: tx,
        tenantId: limit.tenant_id,
        type: "location.power_allocation_changed",
        resourceId: locationId,
        data: {
          location_id: locationId,
          max_power_w: state.max_power_w,
          allocated_w: state.allocated_w,
          live_power_w: state.live_power_w,
          allocations: state.allocations,
        },
      });
  }
  return { sent: sent.count, changed };
}

/** Every limited location's recomputation, asked for at once (the gateway's start, the sweep). */
export async function requestAllRecomputes(db: Db) {
  await db.$executeRaw`
    WITH inserted AS (
      INSERT INTO jobs (id, name, queue, payload, run_at)
      SELECT ${recomputeTarget.id} || ':sweep:' || location_id || ':' || floor(extract(epoch FROM now()) * 1000)::bigint,
             ${recomputeTarget.id}, ${recomputeTarget.queue},
             jsonb_build_object('locationId', location_id), now()
        FROM site_power_limits
      ON CONFLICT (id) DO NOTHING
      RETURNING queue)
    SELECT pg_notify('jobs', queue) FROM inserted LIMIT 1`;
}

/**
 * Sends each share as a TxProfile, the way `installChargingProfile` does (the `charging_profiles`
 * row, `pending`, and its `station.charging_profile_set` operation in this transaction), in a few
 * statements for all of them: the stations locked in id order with their protocol and live
 * gateway, then which transactions still run (under their stations' locks none can end any more;
 * one that ended since it was read gets nothing), then per send the row, the operation and the
 * row's operation id.
 */
async function sendShares(
  tx: DbTx,
  tenantId: number,
  sessions: readonly (Session & { o: OpenSession })[],
  sends: ReadonlyMap<number, { deciA: number }>,
) {
  const chosen = sessions
    .filter((s) => sends.has(s.key))
    .sort((a, b) => a.o.station_id - b.o.station_id || a.key - b.key);
  if (!chosen.length) return { count: 0, ended: [] as number[] };
  const stations = await tx.$queryRaw<
    { id: number; protocol: string | null; gateway_id: string | null }[]
  >`
    SELECT s.id, s.protocol, CASE WHEN ${gatewayAlive("g")} THEN s.gateway_id END AS gateway_id
      FROM stations s LEFT JOIN gateways g ON g.id = s.gateway_id
     WHERE s.id = ANY(${[...new Set(chosen.map((s) => s.o.station_id))]}::int[])
     ORDER BY s.id FOR NO KEY UPDATE OF s`;
  const byStation = new Map(stations.map((s) => [s.id, s]));
  const running = new Set(
    (
      await tx.$queryRaw<{ id: number }[]>`
        SELECT id FROM transactions
         WHERE id = ANY(${chosen.map((s) => s.o.transaction_id)}::int[]) AND ended_at IS NULL`
    ).map((r) => r.id),
  );
  const ended: number[] = [];
  const now = new Date();
  const items: {
    s: (typeof chosen)[number];
    stationId: number;
    chargingProfileId: number;
    profile: NeutralProfile;
    /** the operation's id, chosen here for a station with a live gateway (sent in one batch) */
    operationId: string;
    live: boolean;
  }[] = [];
  for (const s of chosen) {
    if (!running.has(s.o.transaction_id)) {
      ended.push(s.key);
      continue;
    }
    const station = byStation.get(s.o.station_id)!;
    const chargingProfileId = SITE_LIMIT_PROFILE_BASE + s.o.connector_number;
    const profile: NeutralProfile = {
      purpose: "TxProfile",
      stack_level: SITE_LIMIT_STACK_LEVEL,
      kind: "Relative",
      schedule: {
        unit: "A",
        periods: [{ start: 0, limit: sends.get(s.key)!.deciA / 10, phases: s.phases }],
      },
      connector_id: s.o.connector_id,
      evse_number: s.o.evse_number,
      v16_connector: s.o.connector_number,
      charging_profile_id: chargingProfileId,
      transaction: { id: s.o.transaction_id, reference: s.o.reference },
    };
    if (profileIssues(profile, station.protocol).length) continue; // cannot happen: the shape is fixed
    const live = station.gateway_id !== null;
    items.push({
      s,
      stationId: station.id,
      chargingProfileId,
      profile,
      operationId: live ? newId("op") : "",
      live,
    });
  }
  if (!items.length) return { count: 0, ended };
  // every row at once, each `pending` and naming its operation (chosen above; "" for a station
  // without a live gateway, whose operation settles at once below and writes its own)
  const rows = await tx.$queryRaw<
    { id: string; station_id: number; charging_profile_id: number }[]
  >`
    INSERT INTO charging_profiles (id, tenant_id, station_id, charging_profile_id, source,
                                   evse_number, connector_id, purpose, stack_level, profile, state,
                                   charger_status, operation_id, created_at, updated_at)
    SELECT u.id, ${tenantId}, u.station_id, u.charging_profile_id, ${SITE_LIMIT_SOURCE},
           u.evse_number, u.connector_id, 'TxProfile', ${SITE_LIMIT_STACK_LEVEL}, u.profile::jsonb,
           'pending', NULL, u.operation_id, ${now}, ${now}
      FROM UNNEST(${items.map(() => newId("cpr"))}::text[], ${items.map((i) => i.stationId)}::int[],
                  ${items.map((i) => i.chargingProfileId)}::int[],
                  ${items.map((i) => i.profile.evse_number)}::int[],
                  ${items.map((i) => i.s.o.connector_id)}::int[],
                  ${items.map((i) => JSON.stringify(i.profile))}::text[],
                  ${items.map((i) => i.operationId)}::text[])
        AS u(id, station_id, charging_profile_id, evse_number, connector_id, profile, operation_id)
    ON CONFLICT (station_id, charging_profile_id) DO UPDATE
       SET source = EXCLUDED.source, evse_number = EXCLUDED.evse_number,
           connector_id = EXCLUDED.connector_id, purpose = EXCLUDED.purpose,
           stack_level = EXCLUDED.stack_level, profile = EXCLUDED.profile, state = 'pending',
           charger_status = NULL, operation_id = EXCLUDED.operation_id,
           updated_at = EXCLUDED.updated_at
    RETURNING id, station_id, charging_profile_id`;
  const rowId = new Map(rows.map((r) => [`${r.station_id}:${r.charging_profile_id}`, r.id]));
  const requestOf = (i: (typeof items)[number]): SetRequest => ({
    profile_id: rowId.get(`${i.stationId}:${i.chargingProfileId}`)!,
    profile: i.profile,
    source: SITE_LIMIT_SOURCE,
  });
  const live = items.filter((i) => i.live);
  if (live.length)
    // the operations as `createOperation` writes them for a live station, and the gateways'
    // wake-up (NOTIFY, delivered at commit: server/operations/operation-notice.ts), in one
    // statement
    await tx.$queryRaw`
      WITH op AS (
        INSERT INTO operations (id, tenant_id, api_key_id, station_id, scope, action, status,
                                request, secret, created_at)
        SELECT u.id, ${tenantId}, NULL, u.station_id, ${chargingProfileSet.scope},
               'set_charging_profile', 'dispatching', u.request::jsonb, NULL, ${now}
          FROM UNNEST(${live.map((i) => i.operationId)}::text[],
                      ${live.map((i) => i.stationId)}::int[],
                      ${live.map((i) => JSON.stringify(requestOf(i)))}::text[])
            AS u(id, station_id, request)
        RETURNING id, station_id)
      SELECT count(*)::int AS n FROM op, pg_notify('operations', op.station_id || ' ' || op.id)`;
  for (const i of items.filter((x) => !x.live)) {
    // no live gateway: the operation settles at once (rejected, station_offline) and its
    // completion writes the row's state and operation
    await createOperation({
      db: tx,
      tenantId,
      stationId: i.stationId,
      apiKeyId: null,
      scope: chargingProfileSet.scope,
      action: "set_charging_profile",
      request: requestOf(i),
      gatewayId: null,
    });
  }
  const count = items.length;
  return { count, ended };
}
