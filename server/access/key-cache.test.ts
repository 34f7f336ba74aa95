import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "../db";
import { DomainError } from "../errors";
import { PrismaClient } from "../generated/prisma/client";
import { revokeApiKey } from "../keys/revoke-api-key";
import { WindowCounts, WINDOW_FLUSH_MS } from "../lib/window-counts";
import { aTenantWithKey } from "../../testing/builders";
import type { ApiKeyCaller } from "./caller";
import { authenticateRequest } from "./credentials";
import { closeKeyCache, createKeyCache, type KeyCache } from "./key-cache";
import { waitUntil } from "../../testing/ocpp";

const url = () => process.env.DATABASE_URL!;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * One web process's key handling, on its own: its cache (listening on its own connection), its
 * window counts, and the pool its key lookups go to, which counts the statements sent.
 */
async function aProcess(options: { retryMs?: number; ttlMs?: number; aloneCheckMs?: number } = {}) {
  const cache: KeyCache<ApiKeyCaller> = createKeyCache<ApiKeyCaller>({
    databaseUrl: url(),
    ...options,
  });
  const pool = new pg.Pool({ connectionString: url(), max: 4 });
  const windows = new WindowCounts(() => pool);
  let statements = 0;
  const holds = new Map<string, Hold>();
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as { query: unknown }).query = (...args: unknown[]) => {
    statements++;
    const name = (args[0] as { name?: string } | undefined)?.name;
    const hold = name === undefined ? undefined : holds.get(name);
    if (!hold) return query(...args);
    holds.delete(name!);
    if (hold.at === "statement") {
      hold.reach();
      return hold.gate.then(() => query(...args));
    }
    return query(...args).then(async (answer) => {
      hold.reach();
      await hold.gate;
      return answer;
    });
  };
  closers.push(async () => {
    await windows.stop();
    await cache.close();
    await pool.end();
  });
  expect(await cache.ready()).toBe(true);
  // a cache that keeps nothing: a request through it always looks its key up
  const noCache = createKeyCache<ApiKeyCaller>({ databaseUrl: url() });
  await noCache.close();
  return {
    cache,
    windows,
    statements: () => statements,
    auth: (key: string, now?: number) =>
      authenticateRequest(db(), key, { counters: pool, cache, windows, now }),
    lookUp: (key: string, now?: number) =>
      authenticateRequest(db(), key, { counters: pool, cache: noCache, windows, now }),
    /**
     * Holds the next statement of this name, before it reaches the database or after its answer,
     * until `release`; `reached` resolves when it is held.
     */
    hold(name: string, at: Hold["at"]) {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (reach = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      holds.set(name, { at, gate, reach });
      return { reached, release };
    },
  };
}

type Hold = { at: "statement" | "answer"; gate: Promise<void>; reach: () => void };

/** A second database client, as another process (or an operator's session) holds. */
function anotherClient() {
  const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: url() }) });
  closers.push(() => client.$disconnect());
  return client;
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof DomainError ? error.code : error),
  );

describe("the key cache", () => {
  it("verifies a key once: its later requests take no database round trip", async () => {
    const project = await aTenantWithKey();
    const web = await aProcess();
    // one instant for all, so the 21 fall in one window however slow the machine
    const now = Date.now();
    const first = await web.auth(project.key, now);
    expect(first.caller).toMatchObject({ kind: "api_key", keyId: project.keyId });
    expect(web.statements()).toBe(1);
    for (let i = 0; i < 20; i++) {
      const next = await web.auth(project.key, now);
      expect(next.caller).toMatchObject({ keyId: project.keyId, tenantId: project.tenantId });
      expect(next.rateLimit).toMatchObject({ limit: 180, remaining: 180 - (i + 2) });
    }
    expect(web.statements()).toBe(1);
    // the counts reach the database on the flush timer (every WINDOW_FLUSH_MS), in one statement
    for (let waited = 0; web.statements() < 2 && waited < 5_000; waited += WINDOW_FLUSH_MS)
      await new Promise((resolve) => setTimeout(resolve, WINDOW_FLUSH_MS));
    expect(web.statements()).toBe(2);
    const window = await db().rateLimitWindow.findUniqueOrThrow({
      where: { apiKeyId: project.keyId },
    });
    expect(window.count).toBe(21);
  });

  it("refuses a key revoked through another database client on the request after its notice", async () => {
    const project = await aTenantWithKey();
    const web = await aProcess();
    await web.auth(project.key);
    await web.auth(project.key);
    expect(web.cache.size()).toBe(1);
    const noticed = web.cache.nextNotice(2_000);
    // the product's own revoke function, on a client of its own (another process's)
    await revokeApiKey({ keyId: project.keyId, db: anotherClient() });
    expect(await noticed).toBe(true);
    expect(web.cache.size()).toBe(0);
    expect(await refusal(web.auth(project.key))).toBe("unauthenticated");
  });

  it("refuses a key whose owner another client suspends, and narrows it when the owner's grant changes", async () => {
    const project = await aTenantWithKey({ scopes: ["stations:read", "stations:write"] });
    const web = await aProcess();
    await web.auth(project.key);
    const other = anotherClient();
    let noticed = web.cache.nextNotice(2_000);
    await other.teamMember.update({
      where: { teamId_userId: { teamId: project.teamId, userId: project.ownerUserId } },
      data: { role: "viewer" },
    });
    expect(await noticed).toBe(true);
    const narrowed = await web.auth(project.key);
    expect([...(narrowed.caller as ApiKeyCaller).scopes]).toEqual(["stations:read"]);
    noticed = web.cache.nextNotice(2_000);
    await other.user.update({
      where: { id: project.ownerUserId },
      data: { suspendedAt: new Date() },
    });
    expect(await noticed).toBe(true);
    expect(await refusal(web.auth(project.key))).toBe("unauthenticated");
    // and a removed membership: the key's owner no longer has access to its project
    const second = await aTenantWithKey();
    await web.auth(second.key);
    noticed = web.cache.nextNotice(2_000);
    await other.teamMember.delete({
      where: { teamId_userId: { teamId: second.teamId, userId: second.ownerUserId } },
    });
    expect(await noticed).toBe(true);
    expect(await refusal(web.auth(second.key))).toBe("unauthenticated");
  });

  it("takes a change made through this process's own pool at once, before any notice", async () => {
    const project = await aTenantWithKey();
    const web = await aProcess();
    await web.auth(project.key);
    await web.auth(project.key);
    // db() is this process's pool: the cache empties as the write is sent
    await db().apiKey.update({ where: { id: project.keyId }, data: { revokedAt: new Date() } });
    expect(await refusal(web.auth(project.key))).toBe("unauthenticated");
  });

  it("reads every request from the database while its listener is down, and so misses no change", async () => {
    const project = await aTenantWithKey();
    // a listener that, once lost, does not come back during the test
    const web = await aProcess({ retryMs: 60_000 });
    await web.auth(project.key);
    await web.auth(project.key);
    expect(web.statements()).toBe(1);
    const pid = web.cache.listenerPid();
    expect(pid).toBeTypeOf("number");
    await db().$queryRaw`SELECT pg_terminate_backend(${pid}::int)`;
    for (let i = 0; i < 200 && web.cache.listening(); i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(web.cache.listening()).toBe(false);
    expect(web.cache.size()).toBe(0);
    await web.auth(project.key);
    await web.auth(project.key);
    expect(web.statements()).toBe(3);
    // a change no listener hears of (on another client, so not through this process's pool)
    await revokeApiKey({ keyId: project.keyId, db: anotherClient() });
    expect(await refusal(web.auth(project.key))).toBe("unauthenticated");
  });

  it("trusts an entry for its time to live at most", async () => {
    const project = await aTenantWithKey();
    const web = await aProcess({ ttlMs: 1_000 });
    const now = Date.now();
    await web.auth(project.key, now);
    await web.auth(project.key, now + 500);
    expect(web.statements()).toBe(1);
    await web.auth(project.key, now + 1_600);
    expect(web.statements()).toBe(2);
  });
});

describe("rate-limit counts in memory", () => {
  it("refuses at the limit under concurrency, with the limit's state, and writes every attempt", async () => {
    const project = await aTenantWithKey();
    await db().apiKey.update({ where: { id: project.keyId }, data: { rateLimitPerMinute: 10 } });
    const web = await aProcess();
    const now = Date.UTC(2026, 10, 26, 10, 0, 5);
    await web.auth(project.key, now);
    const states = await Promise.all(
      Array.from({ length: 19 }, () => web.auth(project.key, now).then((r) => r.rateLimit)),
    );
    expect(web.statements()).toBe(1);
    expect(states.filter((s) => !s.exceeded)).toHaveLength(9);
    expect(states.filter((s) => s.exceeded)).toHaveLength(10);
    expect(states.map((s) => s.remaining).sort((x, y) => x - y)).toEqual([
      ...Array<number>(11).fill(0),
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
    ]);
    expect(states.find((s) => s.exceeded)).toMatchObject({ limit: 10, resetSeconds: 55 });
    await web.windows.flush();
    const window = await db().rateLimitWindow.findUniqueOrThrow({
      where: { apiKeyId: project.keyId },
    });
    expect(window.count).toBe(20);
    // a new minute: the database's count again
    const next = await web.auth(project.key, now + 60_000);
    expect(next.rateLimit).toMatchObject({ exceeded: false, remaining: 9 });
  });

  it("a key looked up while a flush writes counts that flush's attempts (it waits for it)", async () => {
    const project = await aTenantWithKey();
    const web = await aProcess();
    const now = Date.UTC(2026, 10, 26, 10, 0, 5);
    for (let i = 0; i < 6; i++) await web.auth(project.key, now); // 1 looked up, 5 counted here
    const flush = web.hold("rate-limit-flush", "statement");
    const flushed = web.windows.flush();
    await flush.reached; // the five are on their way to the database, not there yet
    const looked = web.lookUp(project.key, now);
    await new Promise((resolve) => setTimeout(resolve, 50));
    flush.release();
    await flushed;
    expect((await looked).rateLimit).toMatchObject({ remaining: 180 - 7 });
    await web.windows.flush();
    const window = await db().rateLimitWindow.findUniqueOrThrow({
      where: { apiKeyId: project.keyId },
    });
    expect(window.count).toBe(7);
  });

  it("a flush waits for a lookup under way: the lookup's count has what was counted meanwhile", async () => {
    const project = await aTenantWithKey();
    const web = await aProcess();
    const now = Date.UTC(2026, 10, 26, 10, 0, 5);
    await web.auth(project.key, now); // looked up: 1
    const lookup = web.hold("api-key-request", "answer");
    const looked = web.lookUp(project.key, now);
    await lookup.reached; // counted 2 in the database; its answer not yet taken
    for (let i = 0; i < 5; i++) await web.auth(project.key, now); // 5 counted here meanwhile
    const flushed = web.windows.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    lookup.release();
    await flushed;
    // the database's 2 and the 5 not yet written when the lookup answered
    expect((await looked).rateLimit).toMatchObject({ remaining: 180 - 7 });
    const window = await db().rateLimitWindow.findUniqueOrThrow({
      where: { apiKeyId: project.keyId },
    });
    expect(window.count).toBe(7);
  });

  it("adds up two processes' attempts: each sees the other's once both flushed", async () => {
    const project = await aTenantWithKey();
    await db().apiKey.update({ where: { id: project.keyId }, data: { rateLimitPerMinute: 10 } });
    const a = await aProcess();
    const b = await aProcess();
    const now = Date.UTC(2026, 10, 26, 10, 0, 5);
    for (let i = 0; i < 6; i++) await a.auth(project.key, now);
    await a.windows.flush();
    // b's first attempt asks the database: a's six are there
    expect((await b.auth(project.key, now)).rateLimit).toMatchObject({ remaining: 3 });
    const fromB = [];
    for (let i = 0; i < 3; i++) fromB.push((await b.auth(project.key, now)).rateLimit);
    expect(fromB.map((s) => s.exceeded)).toEqual([false, false, false]);
    expect((await b.auth(project.key, now)).rateLimit.exceeded).toBe(true);
    await b.windows.flush();
    // a, idle longer than its counts stay fresh, asks the database again and refuses
    await new Promise((resolve) => setTimeout(resolve, WINDOW_FLUSH_MS * 3));
    const fromA = await a.auth(project.key, now);
    expect(fromA.rateLimit).toMatchObject({ exceeded: true, remaining: 0 });
    await a.windows.flush();
    const window = await db().rateLimitWindow.findUniqueOrThrow({
      where: { apiKeyId: project.keyId },
    });
    expect(window.count).toBe(12);
  });
});

describe("a web process alone on its database", () => {
  const idle = () => new Promise((resolve) => setTimeout(resolve, WINDOW_FLUSH_MS * 3));

  it("keeps an idle key's count in memory while its listener is the only one; another's start ends that at once", async () => {
    await closeKeyCache(); // this file's process-wide cache, if a test started it
    const project = await aTenantWithKey();
    // counted once, at its start: only the other's notice can end "alone" here
    const a = await aProcess({ aloneCheckMs: 60_000 });
    await waitUntil(() => a.cache.alone(), 5_000);
    const now = Date.UTC(2026, 10, 26, 10, 0, 5);
    await a.auth(project.key, now); // looked up: 1
    expect(a.statements()).toBe(1);
    await idle(); // longer than an idle count stays fresh with others about
    expect((await a.auth(project.key, now)).rateLimit).toMatchObject({ remaining: 180 - 2 });
    expect(a.statements()).toBe(1); // counted here: no statement
    await a.windows.flush();

    const b = await aProcess();
    await waitUntil(() => !a.cache.alone(), 2_000);
    for (let i = 0; i < 3; i++) await b.auth(project.key, now); // looked up, then counted there
    await b.windows.flush();
    await idle();
    const before = a.statements();
    // a asks the database again, which has b's three
    expect((await a.auth(project.key, now)).rateLimit).toMatchObject({ remaining: 180 - 6 });
    expect(a.statements()).toBe(before + 1);
  });

  it("is alone again once the other process's listener is gone", async () => {
    await closeKeyCache();
    const a = await aProcess({ aloneCheckMs: 100 });
    const b = await aProcess({ aloneCheckMs: 100 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([a.cache.alone(), b.cache.alone()]).toEqual([false, false]);
    await b.cache.close();
    await waitUntil(() => a.cache.alone(), 5_000);
  });
});
