import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerGateway } from "../server/charging/gateways";
import { db } from "../server/db";
import { newId } from "../server/lib/ids";
import { completeOperation } from "../server/operations/complete-operation";
import { createCommand } from "../server/operations/create-command";
import { call, idem } from "../testing/api";
import { aStation, aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

/**
 * Every statement a pg client sends, as the request that caused it sees it: each /v1 call below
 * runs in its own context, so the in-process gateway's statements are not counted with it.
 */
const sent = new AsyncLocalStorage<string[]>();
const query = Reflect.get(pg.Client.prototype, "query") as (...args: unknown[]) => unknown;
beforeAll(() => {
  Reflect.set(pg.Client.prototype, "query", function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string };
    sent.getStore()?.push((typeof q === "string" ? q : (q.text ?? "")).replace(/\s+/g, " ").trim());
    return query.apply(this, args);
  });
});
afterAll(() => {
  Reflect.set(pg.Client.prototype, "query", query);
});

const gw = aLiveGateway({ callTimeoutMs: 3000 });

const PASSWORD = "statements-password-01";

describe("a command's database round trips", () => {
  it("are the key's one statement (none when cached), a transaction of four, and one operation read per wake-up", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, PASSWORD);
    const charger = await aConnectedCharger(gw, station, PASSWORD, "ocpp1.6", (charger) => {
      charger.handle("Reset", () => Promise.resolve({ status: "Accepted" }));
    });
    await waitUntil(
      async () =>
        (await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, { key: t.key })).body
          .online === true,
    );
    for (let i = 0; i < 2; i++) {
      const statements: string[] = [];
      const res = await sent.run(statements, () =>
        call("POST", `/v1/tenants/${t.tenantId}/stations/${station.id}/commands`, {
          key: t.key,
          body: { action: "reset", mode: "soft" },
          idempotencyKey: idem(),
        }),
      );
      expect(res.status).toBe(202);
      expect(res.body.status).toBe("succeeded");
      const commit = statements.indexOf("COMMIT");
      // the key (with its rate-limit bump), only when the process's key cache and in-memory
      // window cannot answer for it (server/access/key-cache.ts; the key was just used above, so
      // usually not); BEGIN; the Idempotency-Key's claim; the station, its connector or
      // transaction and its live gateway; the operation with its NOTIFY; the key's stored answer;
      // COMMIT (Prisma took three statements more: the station's connectors, the gateway and the
      // NOTIFY each on their own)
      const first = statements[0]?.startsWith("WITH key AS") ? 1 : 0;
      expect(statements.slice(first, commit + 1)).toEqual([
        "BEGIN",
        expect.stringMatching(/^INSERT INTO idempotency_records/),
        expect.stringMatching(/^SELECT EXISTS \(SELECT 1 FROM connectors/),
        expect.stringMatching(/^WITH op AS \( INSERT INTO operations .* pg_notify\('operations'/),
        expect.stringMatching(/^UPDATE idempotency_records SET response_status/),
        "COMMIT",
      ]);
      // after the commit, the 202 only reads its operation: once listening, and once per wake-up
      const reads = statements.slice(commit + 1).filter((s) => !s.startsWith("LISTEN"));
      expect(reads.length).toBeGreaterThanOrEqual(1);
      for (const read of reads) expect(read).toMatch(/^SELECT id, tenant_id AS "tenantId"/);
    }
    await charger.close({ force: true });
  });

  it("refuses a connector or transaction of another station, and another tenant's station", async () => {
    const t = await aTenantWithKey();
    const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const other = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const otherTransaction = await db().transaction.create({
      data: { tenantId: t.tenantId, stationId: other.id, reference: "other-1" },
    });
    const command = (stationId: number, body: unknown, tenantId = t.tenantId) =>
      call("POST", `/v1/tenants/${tenantId}/stations/${stationId}/commands`, {
        key: t.key,
        body,
        idempotencyKey: idem(),
      });
    const connector = await command(station.id, {
      action: "unlock",
      connector_id: other.connectors[0]!.id,
    });
    expect(connector.status).toBe(422);
    expect(connector.body.error.code).toBe("connector_not_found");
    const transaction = await command(station.id, {
      action: "stop",
      transaction_id: otherTransaction.id,
    });
    expect(transaction.status).toBe(422);
    expect(transaction.body.error.code).toBe("transaction_not_found");
    // the station's own connector and transaction pass; offline, it is rejected at once
    const own = await command(station.id, {
      action: "unlock",
      connector_id: station.connectors[0]!.id,
    });
    expect(own.status).toBe(202);
    expect(own.body).toMatchObject({
      status: "rejected",
      result: { error: { code: "station_offline" } },
    });
    const elsewhere = await aTenantWithKey();
    const foreign = await aStation(elsewhere.tenantId, elsewhere.key, { connector_count: 1 });
    const missing = await command(foreign.id, { action: "reset", mode: "soft" });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
  });

  it("completing one locks its station and writes the outcome with its notice in two statements", async () => {
    const t = await aTenantWithKey();
    const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const gatewayId = newId("gw");
    await registerGateway(db(), gatewayId);
    await db().station.update({ where: { id: station.id }, data: { gatewayId } });
    const operation = await createCommand({
      tenantId: t.tenantId,
      stationId: station.id,
      apiKeyId: null,
      command: { action: "reset", mode: "soft" },
    });
    expect(operation.status).toBe("dispatching");
    const statements: string[] = [];
    const outcome = { status: "succeeded" as const, result: { status: "Accepted" } };
    const completed = await sent.run(statements, () =>
      db().$transaction((tx) => completeOperation(tx, operation.id, outcome)),
    );
    expect(completed).toMatchObject({ status: "succeeded", result: { status: "Accepted" } });
    // BEGIN; the operation's state with its station's lock (the lock order's first); the outcome
    // with its NOTIFY; then the event (Prisma took four: read, lock, update, NOTIFY)
    expect(statements.slice(0, 3)).toEqual([
      "BEGIN",
      expect.stringMatching(
        /^SELECT o\.status, \(SELECT s\.id FROM stations s .* FOR NO KEY UPDATE\)/,
      ),
      expect.stringMatching(/^WITH op AS \( UPDATE operations .* pg_notify\(\$\d+, op\.id\)/),
    ]);
    expect(statements.at(-1)).toBe("COMMIT");
    // once final, a second completion finds it so after one statement and writes nothing
    const again: string[] = [];
    const second = await sent.run(again, () =>
      db().$transaction((tx) => completeOperation(tx, operation.id, outcome)),
    );
    expect(second).toBeNull();
    expect(again).toEqual(["BEGIN", expect.stringMatching(/^SELECT o\.status/), "COMMIT"]);
  });
});
