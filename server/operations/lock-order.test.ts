import { describe, expect, it } from "vitest";
import { recordConnectionChanges } from "../charging/connections";
import { db, type Db } from "../db";
import { isRetryableConflict } from "../db/retry";
import { appendEvent } from "../events/append-event";
import { newId } from "../lib/ids";
import { call } from "../../testing/api";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { completeOperation } from "./complete-operation";

type Step = { model?: string; operation: string; sql: string };

/**
 * The process's client with a hook after each statement, so a test can hold a transaction between
 * two of its statements (the statement before it has already taken its locks). Records every
 * statement that PostgreSQL aborted for a deadlock or serialization failure.
 */
function hooked(after: (step: Step) => Promise<void>, conflicts: unknown[]) {
  return db().$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        try {
          const result = await query(args);
          const sql = (args as { sql?: unknown } | undefined)?.sql;
          await after({ model, operation, sql: typeof sql === "string" ? sql : "" });
          return result;
        } catch (error) {
          if (isRetryableConflict(error)) conflicts.push(error);
          throw error;
        }
      },
    },
  }) as unknown as Db;
}

function latch() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Resolves once some backend of this database waits for a row lock (or when stopped). */
async function someoneWaitsForALock(stop: { stopped: boolean }) {
  while (!stop.stopped) {
    const [row] = await db().$queryRaw<{ waiting: bigint }[]>`
      SELECT count(*) AS waiting FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    if (row && row.waiting > 0n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function aConnectedStationWithAClaimedCommand() {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
  const gatewayId = newId("gw");
  await db().gateway.create({ data: { id: gatewayId } });
  const connectedAt = new Date();
  const { connectionGeneration: generation } = await db().station.update({
    where: { id: station.id },
    data: { gatewayId, protocol: "ocpp1.6", connectedAt, connectionGeneration: { increment: 1 } },
  });
  const operation = await db().operation.create({
    data: {
      id: newId("op"),
      tenantId: t.tenantId,
      stationId: station.id,
      scope: "station.command",
      action: "reset",
      status: "dispatching",
      request: { action: "reset", mode: "soft" },
      claimedBy: gatewayId,
      claimedAt: new Date(),
    },
  });
  return { ...t, station, gatewayId, connectedAt, generation, operation };
}

describe("lock order", () => {
  it("a disconnect and an operation's outcome for the same station, interleaved at their locks, both commit without a deadlock", async () => {
    const s = await aConnectedStationWithAClaimedCommand();
    const conflicts: unknown[] = [];
    const disconnectHoldsStation = latch();
    const outcomeHoldsCounter = latch();
    const poll = { stopped: false };

    // A: the disconnect, held right after its first write to the station row until the outcome's
    // transaction has taken the tenant's event counter, or is waiting for a lock itself.
    const disconnectDb = hooked(async (step) => {
      if (step.sql.includes("SET gateway_id = NULL")) {
        disconnectHoldsStation.open();
        await Promise.race([outcomeHoldsCounter.opened, someoneWaitsForALock(poll)]);
      }
    }, conflicts);
    // B: the outcome (what the gateway records when the call fails on the closed socket).
    const outcomeDb = hooked((step) => {
      if (step.sql.includes("tenant_event_counters")) outcomeHoldsCounter.open();
      return Promise.resolve();
    }, conflicts);

    const disconnect = recordConnectionChanges(disconnectDb, s.gatewayId, [
      {
        kind: "disconnected",
        station: { id: s.station.id, tenantId: s.tenantId },
        generation: s.generation,
      },
    ]);
    await disconnectHoldsStation.opened;
    const outcome = outcomeDb.$transaction((tx) =>
      completeOperation(tx, s.operation.id, {
        status: "unknown",
        result: { error: { code: "dispatch_unconfirmed", message: "closed", details: {} } },
      }),
    );
    const results = await Promise.allSettled([disconnect, outcome]);
    poll.stopped = true;

    expect(conflicts).toEqual([]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    const station = await db().station.findUniqueOrThrow({ where: { id: s.station.id } });
    expect(station.gatewayId).toBeNull();
    const operation = await db().operation.findUniqueOrThrow({ where: { id: s.operation.id } });
    expect(operation).toMatchObject({ status: "unknown", secret: null });
    const events = await db().event.findMany({
      where: { tenantId: s.tenantId, stationId: s.station.id },
      orderBy: { sequence: "asc" },
    });
    expect(events.map((e) => e.type).sort()).toEqual([
      "operation.completed",
      "station.disconnected",
    ]);
    // The tenant's sequence and the station's stay gap-free.
    const all = await db().event.findMany({
      where: { tenantId: s.tenantId },
      orderBy: { sequence: "asc" },
    });
    expect(all.map((e) => e.sequence)).toEqual(all.map((_, i) => i + 1));
    expect(events.map((e) => e.stationSequence)).toEqual([
      station.eventSequence - 1,
      station.eventSequence,
    ]);
  });

  it("with the counter taken last, a reader paging by sequence still never misses a station event that commits later", async () => {
    const { tenantId, key, keyId } = await aTenantWithKey();
    await db().apiKey.update({ where: { id: keyId }, data: { rateLimitPerMinute: 1200 } });
    const stations = [
      await aStation(tenantId, key, { connector_count: 1 }),
      await aStation(tenantId, key, { connector_count: 1 }),
    ];
    const WRITERS = 6;
    const PER_WRITER = 10;
    const seen: number[] = [];
    let writing = true;
    const reader = (async () => {
      let after = 0;
      for (;;) {
        const done = !writing;
        const page = await call("GET", `/v1/tenants/${tenantId}/events?after=${after}&limit=7`, {
          key,
        });
        expect(page.status).toBe(200);
        seen.push(...page.body.data.map((e: { sequence: number }) => e.sequence));
        after = page.body.next_cursor;
        if (done && page.body.data.length === 0) break;
        if (page.body.data.length === 0) await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const station = stations[w % stations.length]!;
        for (let i = 0; i < PER_WRITER; i++) {
          await db().$transaction(async (tx) => {
            await appendEvent({
              db: tx,
              tenantId,
              type: "station.connected",
              resourceId: station.id,
              station: { id: station.id, occurredAt: null },
              data: { writer: w, i },
            });
            // hold the transaction open a little, so commits interleave with the reader
            await new Promise((r) => setTimeout(r, Math.random() * 8));
          });
        }
      }),
    );
    writing = false;
    await reader;
    expect(seen).toEqual(Array.from({ length: WRITERS * PER_WRITER }, (_, i) => i + 1));
    for (const station of stations) {
      const events = await db().event.findMany({
        where: { tenantId, stationId: station.id },
        orderBy: { sequence: "asc" },
      });
      // per station, station_sequence follows the tenant's sequence without gaps
      expect(events.map((e) => e.stationSequence)).toEqual(events.map((_, i) => i + 1));
    }
  });
});
