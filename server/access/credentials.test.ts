import pg from "pg";
import { describe, expect, it } from "vitest";
import { asyncCommitPool, db } from "../db";
import { DomainError } from "../errors";
import { revokeApiKey } from "../keys/revoke-api-key";
import { aTenantWithKey } from "../../testing/builders";
import { authenticateRequest, windowCounts } from "./credentials";

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof DomainError ? error.code : error),
  );

describe("authenticateRequest with an API key", () => {
  it("holds a key's limit across separate pools (separate web processes) within one window", async () => {
    const project = await aTenantWithKey();
    await db().apiKey.update({ where: { id: project.keyId }, data: { rateLimitPerMinute: 6 } });
    // A second, independent pool stands in for a second web process.
    const second = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 5 });
    const now = Date.UTC(2026, 10, 22, 10, 0, 5);
    try {
      const states = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const counters = i % 2 ? second : asyncCommitPool();
          return (await authenticateRequest(db(), project.key, { now, counters })).rateLimit;
        }),
      );
      expect(states.filter((s) => !s.exceeded)).toHaveLength(6);
      expect(states.filter((s) => s.exceeded)).toHaveLength(4);
      expect(states.map((s) => s.remaining).sort()).toEqual([0, 0, 0, 0, 0, 1, 2, 3, 4, 5]);
      expect(states[0]).toMatchObject({ limit: 6, resetSeconds: 55 });
      // the next minute starts a new count
      const next = await authenticateRequest(db(), project.key, { now: now + 60_000 });
      expect(next.rateLimit).toMatchObject({ exceeded: false, remaining: 5 });
    } finally {
      await second.end();
    }
  });

  it("counts in sessions that commit asynchronously, visible to every other session at once", async () => {
    const project = await aTenantWithKey();
    const { rows } = await asyncCommitPool().query<{ synchronous_commit: string }>(
      "SHOW synchronous_commit",
    );
    expect(rows[0]?.synchronous_commit).toBe("off");
    const now = Date.now();
    await authenticateRequest(db(), project.key, { now });
    await authenticateRequest(db(), project.key, { now });
    // a process writes its in-memory counts at least every 100 ms (server/lib/window-counts.ts)
    await windowCounts().flush();
    const window = await db().rateLimitWindow.findUniqueOrThrow({
      where: { apiKeyId: project.keyId },
    });
    expect(window.count).toBe(2);
  });

  it("refuses a revoked key on the very next request, and does not count it", async () => {
    const project = await aTenantWithKey();
    const used = await authenticateRequest(db(), project.key);
    expect(used.caller).toMatchObject({ kind: "api_key", keyId: project.keyId });
    await revokeApiKey({ keyId: project.keyId });
    expect(await refusal(authenticateRequest(db(), project.key))).toBe("unauthenticated");
    const window = await db().rateLimitWindow.findUniqueOrThrow({
      where: { apiKeyId: project.keyId },
    });
    expect(window.count).toBe(1);
  });

  it("narrows a key's scopes on the very next request when its owner's role changes", async () => {
    const project = await aTenantWithKey({ scopes: ["stations:read", "stations:write"] });
    const before = await authenticateRequest(db(), project.key);
    expect([...(before.caller.kind === "api_key" ? before.caller.scopes : [])].sort()).toEqual([
      "stations:read",
      "stations:write",
    ]);
    await db().teamMember.update({
      where: { teamId_userId: { teamId: project.teamId, userId: project.ownerUserId } },
      data: { role: "viewer" },
    });
    const after = await authenticateRequest(db(), project.key);
    expect([...(after.caller.kind === "api_key" ? after.caller.scopes : [])]).toEqual([
      "stations:read",
    ]);
    await db().user.update({
      where: { id: project.ownerUserId },
      data: { suspendedAt: new Date() },
    });
    expect(await refusal(authenticateRequest(db(), project.key))).toBe("unauthenticated");
  });

  it("answers an unknown key 401 and counts nothing", async () => {
    const before = await db().rateLimitWindow.count();
    expect(await refusal(authenticateRequest(db(), "cpk_live_unknown"))).toBe("unauthenticated");
    expect(await db().rateLimitWindow.count()).toBe(before);
  });
});
