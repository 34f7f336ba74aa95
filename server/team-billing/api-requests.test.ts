import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import { aMember, aUser, accessTokenFor } from "../../testing/users";
import { ApiRequestCounter, apiRequestCounter } from "./api-requests";
import { monthOf } from "./usage";

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(Math.floor(ms / DAY) * DAY);

/** The stored count of a tenant's requests on the UTC day of `at`. */
async function stored(tenantId: number, at = Date.now()) {
  const row = await db().apiRequestCount.findUnique({
    where: { tenantId_day: { tenantId, day: dayOf(at) } },
  });
  return Number(row?.count ?? 0);
}

// The router counts into the process's counter; write what earlier steps counted first.
beforeEach(async () => {
  expect(await apiRequestCounter().flush()).toBe(true);
});

describe("API requests counted per project and UTC day", () => {
  it("counts each answered /v1 request of a project's key or member through the real router, 4xx included; unauthenticated, rate-limited and public requests are not counted", async () => {
    const a = await aTenantWithKey();
    const b = await aTenantWithKey();
    const viewer = await aMember(a.teamId, "viewer");
    const outsider = await aUser();
    const before = { a: await stored(a.tenantId), b: await stored(b.tenantId) };

    const answers: number[] = [];
    const ask = async (path: string, key?: string) =>
      answers.push((await call("GET", path, key ? { key } : {})).status);
    // counted for A: 3 reads by its key, a 404 by its key, a 422 by its key, a 403 to its
    // viewer, a read by its viewer
    await ask(`/v1/tenants/${a.tenantId}`, a.key);
    await ask(`/v1/tenants/${a.tenantId}/stations`, a.key);
    await ask(`/v1/tenants/${a.tenantId}/locations`, a.key);
    await ask(`/v1/tenants/${a.tenantId}/stations/999999`, a.key);
    await ask(`/v1/tenants/${a.tenantId}/stations?limit=abc`, a.key);
    await ask(`/v1/tenants/${a.tenantId}/api-keys`, viewer.token);
    await ask(`/v1/tenants/${a.tenantId}`, viewer.token);
    // A's key asking for B's project is A's request (404), not B's
    await ask(`/v1/tenants/${b.tenantId}`, a.key);
    // counted for B: one read
    await ask(`/v1/tenants/${b.tenantId}/stations`, b.key);
    // counted for nobody: no credentials, a wrong key, a person outside the team (404, no
    // tenant of theirs), the public discovery route
    await ask(`/v1/tenants/${a.tenantId}/stations`);
    await ask(`/v1/tenants/${a.tenantId}/stations`, "cpk_live_wrong");
    await ask(`/v1/tenants/${a.tenantId}`, outsider.token);
    await ask(`/v1`);
    expect(answers).toEqual([200, 200, 200, 404, 422, 403, 200, 404, 200, 401, 401, 404, 200]);

    // nothing is written before the flush: the request path touches memory only
    expect(await stored(a.tenantId)).toBe(before.a);
    expect(await apiRequestCounter().flush()).toBe(true);
    expect(await stored(a.tenantId)).toBe(before.a + 8);
    expect(await stored(b.tenantId)).toBe(before.b + 1);

    // a key over its rate limit: the 429s are not counted
    await db().apiKey.update({ where: { id: a.keyId }, data: { rateLimitPerMinute: 1 } });
    const limited: number[] = [];
    for (let i = 0; i < 3; i++)
      limited.push((await call("GET", `/v1/tenants/${a.tenantId}`, { key: a.key })).status);
    expect(limited.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    expect(await apiRequestCounter().flush()).toBe(true);
    expect(await stored(a.tenantId)).toBe(before.a + 8 + limited.filter((s) => s !== 429).length);
  });

  it("keeps one row per project and UTC day", async () => {
    const a = await aTenantWithKey();
    const counter = new ApiRequestCounter();
    const today = Date.now();
    const yesterday = today - DAY;
    for (let i = 0; i < 5; i++) counter.count(a.tenantId, today);
    for (let i = 0; i < 2; i++) counter.count(a.tenantId, yesterday);
    expect(await counter.flush()).toBe(true);
    const rows = await db().apiRequestCount.findMany({
      where: { tenantId: a.tenantId },
      orderBy: { day: "asc" },
    });
    expect(rows.map((r) => [r.day.toISOString().slice(0, 10), Number(r.count)])).toEqual([
      [dayOf(yesterday).toISOString().slice(0, 10), 2],
      [dayOf(today).toISOString().slice(0, 10), 5],
    ]);
  });

  it("two processes' counters flushing at the same time add up exactly (no read-modify-write)", async () => {
    const a = await aTenantWithKey();
    const b = await aTenantWithKey();
    const today = Date.now();
    const yesterday = today - DAY;
    const first = new ApiRequestCounter();
    const second = new ApiRequestCounter();
    const expected = new Map<string, number>();
    // 20 rounds: each counts into the same four rows (in opposite orders), then both flush at once
    for (let round = 0; round < 20; round++) {
      for (const [counter, n, order] of [
        [first, 37, [a.tenantId, b.tenantId]],
        [second, 53, [b.tenantId, a.tenantId]],
      ] as const) {
        for (const tenant of order)
          for (const at of [today, yesterday])
            for (let i = 0; i < n; i++) {
              counter.count(tenant, at);
              const k = `${tenant}@${dayOf(at).toISOString()}`;
              expected.set(k, (expected.get(k) ?? 0) + 1);
            }
      }
      expect(await Promise.all([first.flush(), second.flush()])).toEqual([true, true]);
    }
    for (const tenant of [a.tenantId, b.tenantId])
      for (const at of [today, yesterday])
        expect(await stored(tenant, at)).toBe(expected.get(`${tenant}@${dayOf(at).toISOString()}`));
    expect(await stored(a.tenantId, today)).toBe(20 * (37 + 53));
  });

  it("a flush that fails keeps its counts, never throws, and a later flush writes them once", async () => {
    const a = await aTenantWithKey();
    const counter = new ApiRequestCounter();
    for (let i = 0; i < 7; i++) counter.count(a.tenantId);
    // the table is not there: a real failure of the statement
    await db().$executeRawUnsafe(
      `ALTER TABLE api_request_counts RENAME TO api_request_counts_away`,
    );
    try {
      expect(await counter.flush()).toBe(false);
      counter.count(a.tenantId); // counting goes on meanwhile
      expect(await counter.flush()).toBe(false);
      expect(counter.unwritten()).toBe(8);
    } finally {
      await db().$executeRawUnsafe(
        `ALTER TABLE api_request_counts_away RENAME TO api_request_counts`,
      );
    }
    expect(await counter.flush()).toBe(true);
    expect(counter.unwritten()).toBe(0);
    expect(await stored(a.tenantId)).toBe(8);
    expect(await counter.flush()).toBe(true); // nothing left: not written twice
    expect(await stored(a.tenantId)).toBe(8);
  });

  it("a request is answered while the counts cannot be written", async () => {
    const a = await aTenantWithKey();
    await db().$executeRawUnsafe(
      `ALTER TABLE api_request_counts RENAME TO api_request_counts_away`,
    );
    try {
      const res = await call("GET", `/v1/tenants/${a.tenantId}`, { key: a.key });
      expect(res.status).toBe(200);
      expect(await apiRequestCounter().flush()).toBe(false);
    } finally {
      await db().$executeRawUnsafe(
        `ALTER TABLE api_request_counts_away RENAME TO api_request_counts`,
      );
    }
    expect(await apiRequestCounter().flush()).toBe(true);
    expect(await stored(a.tenantId)).toBe(1);
  });
});

describe("the team's usage shows its API requests", () => {
  it("sums the month's days of the team's projects: not its sandbox, not other months, not other teams", async () => {
    const t = await aTenantWithKey();
    const second = await db().tenant.create({ data: { teamId: t.teamId, name: "Second" } });
    const sandbox = await db().tenant.create({
      data: { teamId: t.teamId, name: "Sandbox", kind: "sandbox" },
    });
    const other = await aTenantWithKey();
    const now = Date.now();
    const month = monthOf(new Date(now)).getTime();
    const counter = new ApiRequestCounter();
    const add = (tenantId: number, at: number, n: number) => {
      for (let i = 0; i < n; i++) counter.count(tenantId, at);
    };
    add(t.tenantId, month, 11); // the month's first day
    add(t.tenantId, now, 4);
    add(second.id, now, 6);
    add(sandbox.id, now, 100);
    add(t.tenantId, month - 1, 1_000); // last month's last day
    add(other.tenantId, now, 50);
    expect(await counter.flush()).toBe(true);

    // and requests through the router, counted by the process's counter
    for (let i = 0; i < 3; i++)
      expect((await call("GET", `/v1/tenants/${t.tenantId}`, { key: t.key })).status).toBe(200);
    expect(await apiRequestCounter().flush()).toBe(true);

    const owner = await accessTokenFor(t.ownerUserId);
    const usage = await call("GET", `/v1/teams/${t.teamId}/billing/usage`, { key: owner });
    expect(usage.status).toBe(200);
    expect(usage.body.data[0]).toMatchObject({
      month: new Date(month).toISOString().slice(0, 7),
      api_requests: 11 + 4 + 6 + 3,
    });
  });
});

/** A free TCP port on this machine. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the web process's orderly stop", () => {
  it("writes the counts of its last requests before it exits (SIGTERM, well inside the 5 s interval)", async () => {
    const a = await aTenantWithKey();
    const port = await freePort();
    const root = path.resolve(import.meta.dirname, "../..");
    // the real web process, serving /v1 from the router as it does while the console builds
    const web = spawn(process.execPath, ["--import", "tsx", "scripts/web-server.ts"], {
      cwd: root,
      env: { ...process.env, PORT: String(port), CONSOLE_BUILT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    web.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    web.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => web.on("exit", resolve));
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes("web listening")) {
        if (Date.now() > deadline) throw new Error(`the web process did not listen: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/v1/tenants/${a.tenantId}`, {
          headers: { authorization: `Bearer ${a.key}` },
        });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
      expect(await stored(a.tenantId)).toBe(0); // not written yet: the interval is 5 s
      web.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (web.exitCode === null) web.kill("SIGKILL");
    }
    expect(await stored(a.tenantId)).toBe(6);
  }, 90_000);
});
