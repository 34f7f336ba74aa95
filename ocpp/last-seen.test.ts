import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db, type Db } from "../server/db";
import { log } from "../server/log";
import { aStation, aTenantWithKey } from "../testing/builders";
import { createLastSeen } from "./last-seen";

const writers: ReturnType<typeof createLastSeen>[] = [];
afterEach(async () => {
  await Promise.all(writers.splice(0).map((w) => w.stop()));
});
const seenAt = async (id: number) =>
  (await db().station.findUniqueOrThrow({ where: { id } })).lastSeenAt?.getTime() ?? null;

describe("createLastSeen", () => {
  it("queues nothing for a station whose connect just wrote its last_seen, until the interval has passed", async () => {
    const t = await aTenantWithKey();
    const a = await aStation(t.tenantId, t.key);
    const w = createLastSeen({ db: db(), flushMs: 60_000, minIntervalMs: 30_000 });
    writers.push(w);
    const t0 = Date.UTC(2030, 0, 1);
    w.connected(a.id, t0);
    w.seen(a.id, 0, t0 + 10_000); // its Boot, Status, …: the connect's write stands
    await w.flush();
    expect(await seenAt(a.id)).toBeNull();
    w.seen(a.id, 0, t0 + 31_000); // past the interval: written
    await w.flush();
    expect(await seenAt(a.id)).toBe(t0 + 31_000);
  });

  it("a claimed mark is the batch's to write (the flush skips it); released, the flush writes it", async () => {
    const t = await aTenantWithKey();
    const [a, b] = [await aStation(t.tenantId, t.key), await aStation(t.tenantId, t.key)];
    const w = createLastSeen({ db: db(), flushMs: 60_000, minIntervalMs: 30_000 });
    writers.push(w);
    const t0 = Date.UTC(2030, 0, 1);
    // a's MeterValues, recorded by its batch: the flush writes nothing for it
    expect(w.claim(a.id, t0)).toEqual(new Date(t0));
    expect(w.claim(a.id, t0 + 10_000)).toBeNull(); // within the interval: none due
    w.seen(a.id, 0, t0 + 20_000); // nor for its other messages
    // b's, which its batch left to the per-message path: handed back to the flush
    const mark = w.claim(b.id, t0 + 5)!;
    w.release(b.id, 0, mark);
    await w.flush();
    expect(await seenAt(a.id)).toBeNull();
    expect(await seenAt(b.id)).toBe(t0 + 5);
    expect(w.claim(a.id, t0 + 31_000)).toEqual(new Date(t0 + 31_000)); // past the interval
  });

  it("writes every station due in one flush, each at most once per interval, never backwards", async () => {
    const t = await aTenantWithKey();
    const [a, b] = [await aStation(t.tenantId, t.key), await aStation(t.tenantId, t.key)];
    const w = createLastSeen({ db: db(), flushMs: 60_000, minIntervalMs: 30_000 });
    writers.push(w);
    const t0 = Date.UTC(2030, 0, 1);
    w.seen(a.id, 0, t0);
    w.seen(b.id, 0, t0 + 5);
    w.seen(a.id, 0, t0 + 10_000); // within the interval: not queued again
    expect(await seenAt(a.id)).toBeNull(); // nothing written before the flush
    await w.flush();
    expect(await seenAt(a.id)).toBe(t0);
    expect(await seenAt(b.id)).toBe(t0 + 5);

    w.seen(a.id, 0, t0 + 40_000); // past the interval: written at the next flush
    await w.flush();
    expect(await seenAt(a.id)).toBe(t0 + 40_000);

    // A later connection (forget) may mark it again at once, but an older time never wins.
    w.forget(b.id);
    w.seen(b.id, 0, t0 - 1_000);
    await w.flush();
    expect(await seenAt(b.id)).toBe(t0 + 5);
  });

  it("flushes on its own every flushMs, and on stop", async () => {
    const t = await aTenantWithKey();
    const s = await aStation(t.tenantId, t.key);
    const w = createLastSeen({ db: db(), flushMs: 50 });
    const now = Date.now();
    w.seen(s.id, 0, now);
    await expect.poll(() => seenAt(s.id), { timeout: 5000 }).toBe(now);
    w.forget(s.id);
    w.seen(s.id, 0, now + 1);
    await w.stop();
    expect(await seenAt(s.id)).toBe(now + 1);
  });

  it("a mark of a connection the station no longer has changes nothing", async () => {
    const t = await aTenantWithKey();
    const s = await aStation(t.tenantId, t.key);
    // The station's third connection is its current one.
    await db().station.update({ where: { id: s.id }, data: { connectionGeneration: 3 } });
    const w = createLastSeen({ db: db(), flushMs: 60_000 });
    writers.push(w);
    const t0 = Date.UTC(2030, 0, 1);
    w.seen(s.id, 2, t0); // a late message of the replaced second connection
    await w.flush();
    expect(await seenAt(s.id)).toBeNull();
    w.forget(s.id);
    w.seen(s.id, 3, t0 + 1);
    await w.flush();
    expect(await seenAt(s.id)).toBe(t0 + 1);
  });

  it("a flush and a batch locking the same stations in id order do not deadlock; nothing is dropped", async () => {
    const t = await aTenantWithKey();
    const [a, b] = [await aStation(t.tenantId, t.key), await aStation(t.tenantId, t.key)];
    expect(a.id).toBeLessThan(b.id);
    // A fleet's worth of stations, so PostgreSQL joins a flush's list to the table by index, in
    // the list's order (a hash join over a few rows reads them in the table's order).
    await db().$executeRaw`
      INSERT INTO stations (tenant_id, location_id, name, name_key, updated_at)
      SELECT tenant_id, location_id, name || '-' || g, name_key || '-' || g, now()
        FROM stations, generate_series(1, 2000) g WHERE id = ${a.id}`;
    await db().$executeRaw`ANALYZE stations`;
    const warn = vi.spyOn(log, "warn");
    const w = createLastSeen({ db: db(), flushMs: 60_000 });
    writers.push(w);
    const t0 = Date.UTC(2030, 0, 1);
    // Marked in the other order than the ids: the flush must not lock them so.
    w.seen(b.id, 0, t0);
    w.seen(a.id, 0, t0 + 1);
    // A batch of charger calls (or connection changes) holds the lower station…
    const batch = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await batch.connect();
    try {
      await batch.query("BEGIN");
      await batch.query("SELECT id FROM stations WHERE id = $1 FOR NO KEY UPDATE", [a.id]);
      const flushed = w.flush();
      // …while the flush waits for it…
      await expect
        .poll(async () => {
          const { rows } = await batch.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows[0]!.n;
        })
        .toBe(1);
      // …then takes the next one, as it does, in id order: nothing holds it.
      await batch.query("SET lock_timeout = '3s'");
      await batch.query("SELECT id FROM stations WHERE id = $1 FOR NO KEY UPDATE", [b.id]);
      await batch.query("COMMIT");
      await flushed;
    } finally {
      await batch.end();
    }
    expect(warn.mock.calls.filter(([m]) => String(m).includes("last_seen"))).toEqual([]);
    warn.mockRestore();
    expect(await seenAt(a.id)).toBe(t0 + 1);
    expect(await seenAt(b.id)).toBe(t0);
  });

  it("a flush that fails keeps its marks for the next one", async () => {
    const t = await aTenantWithKey();
    const s = await aStation(t.tenantId, t.key);
    let failures = 1;
    const flaky = db().$extends({
      query: {
        async $allOperations({ args, query }) {
          const sql = (args as { sql?: unknown } | undefined)?.sql;
          if (failures > 0 && typeof sql === "string" && sql.includes("SET last_seen_at")) {
            failures -= 1;
            throw new Error("the database went away");
          }
          return query(args);
        },
      },
    }) as unknown as Db;
    const w = createLastSeen({ db: flaky, flushMs: 60_000 });
    writers.push(w);
    const t0 = Date.UTC(2030, 0, 1);
    w.seen(s.id, 0, t0);
    await w.flush();
    expect(failures).toBe(0);
    expect(await seenAt(s.id)).toBeNull();
    await w.flush();
    expect(await seenAt(s.id)).toBe(t0);
  });
});
