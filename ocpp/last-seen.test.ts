import { afterEach, describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStation, aTenantWithKey } from "../server/testing/builders";
import { createLastSeen } from "./last-seen";

const writers: ReturnType<typeof createLastSeen>[] = [];
afterEach(async () => {
  await Promise.all(writers.splice(0).map((w) => w.stop()));
});
const seenAt = async (id: number) =>
  (await db().station.findUniqueOrThrow({ where: { id } })).lastSeenAt?.getTime() ?? null;

describe("createLastSeen", () => {
  it("writes every station due in one flush, each at most once per interval, never backwards", async () => {
    const t = await aTenantWithKey();
    const [a, b] = [await aStation(t.tenantId, t.key), await aStation(t.tenantId, t.key)];
    const w = createLastSeen({ db: db(), flushMs: 60_000, minIntervalMs: 30_000 });
    writers.push(w);
    const t0 = Date.UTC(2030, 0, 1);
    w.seen(a.id, t0);
    w.seen(b.id, t0 + 5);
    w.seen(a.id, t0 + 10_000); // within the interval: not queued again
    expect(await seenAt(a.id)).toBeNull(); // nothing written before the flush
    await w.flush();
    expect(await seenAt(a.id)).toBe(t0);
    expect(await seenAt(b.id)).toBe(t0 + 5);

    w.seen(a.id, t0 + 40_000); // past the interval: written at the next flush
    await w.flush();
    expect(await seenAt(a.id)).toBe(t0 + 40_000);

    // A later connection (forget) may mark it again at once, but an older time never wins.
    w.forget(b.id);
    w.seen(b.id, t0 - 1_000);
    await w.flush();
    expect(await seenAt(b.id)).toBe(t0 + 5);
  });

  it("flushes on its own every flushMs, and on stop", async () => {
    const t = await aTenantWithKey();
    const s = await aStation(t.tenantId, t.key);
    const w = createLastSeen({ db: db(), flushMs: 50 });
    const now = Date.now();
    w.seen(s.id, now);
    await expect.poll(() => seenAt(s.id), { timeout: 5000 }).toBe(now);
    w.forget(s.id);
    w.seen(s.id, now + 1);
    await w.stop();
    expect(await seenAt(s.id)).toBe(now + 1);
  });
});
