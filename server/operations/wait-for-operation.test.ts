import { afterAll, describe, expect, it } from "vitest";
import { registerGateway } from "../charging/gateways";
import { db } from "../db";
import { inTransaction } from "../db/retry";
import { newId } from "../lib/ids";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { completeOperation } from "./complete-operation";
import { createCommand, waitForOperation } from "./create-command";
import { createOutcomeNotices, OUTCOME_CHANNEL } from "./outcome-notices";

const notices = createOutcomeNotices(process.env.DATABASE_URL!);
afterAll(() => notices.close());

async function dispatchingCommands(count: number) {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
  const gatewayId = newId("gw");
  await registerGateway(db(), gatewayId);
  await db().station.update({
    where: { id: station.id },
    data: { gatewayId, protocol: "ocpp1.6", connectedAt: new Date() },
  });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const operation = await createCommand({
      tenantId: t.tenantId,
      stationId: station.id,
      apiKeyId: null,
      command: { action: "reset", mode: "soft" },
    });
    expect(operation.status).toBe("dispatching");
    ids.push(operation.id);
  }
  return ids;
}

const succeeded = { status: "succeeded" as const, result: { status: "Accepted" } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("waitForOperation", () => {
  it("wakes on the completing transaction's notice, well before its fallback poll", async () => {
    const ids = await dispatchingCommands(6);
    const lags: number[] = [];
    for (const [i, operationId] of ids.entries()) {
      const waiting = waitForOperation({
        db: db(),
        operationId,
        timeoutMs: 3_000,
        pollMs: 2_500,
        notices,
      }).then((operation) => ({ operation, at: performance.now() }));
      // Completion lands at varied points between any reads a poll would make.
      await sleep(250 + i * 130);
      await inTransaction(db(), (tx) => completeOperation(tx, operationId, succeeded));
      const committedAt = performance.now();
      const { operation, at } = await waiting;
      expect(operation.status).toBe("succeeded");
      lags.push(at - committedAt);
    }
    // A poll alone (every 2.5 s here; every 200 ms before notices) would lag by up to its interval.
    expect(Math.max(...lags)).toBeLessThan(100);
  });

  it("finds an outcome whose notice never came on its fallback poll", async () => {
    const [operationId] = await dispatchingCommands(1);
    const started = performance.now();
    const waiting = waitForOperation({
      db: db(),
      operationId: operationId!,
      timeoutMs: 3_000,
      pollMs: 300,
      notices,
    });
    await sleep(100);
    // Final without completeOperation: no notice is sent.
    await db().operation.update({
      where: { id: operationId },
      data: { status: "succeeded", result: succeeded.result, completedAt: new Date() },
    });
    const operation = await waiting;
    expect(operation.status).toBe("succeeded");
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("gives the operation as it is when its time runs out", async () => {
    const [operationId] = await dispatchingCommands(1);
    const started = performance.now();
    const operation = await waitForOperation({
      db: db(),
      operationId: operationId!,
      timeoutMs: 400,
      pollMs: 100,
      notices,
    });
    expect(operation.status).toBe("dispatching");
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it("serves every waiter of the process on one LISTEN connection", async () => {
    const ids = await dispatchingCommands(20);
    const waiting = ids.map((operationId) =>
      waitForOperation({ db: db(), operationId, timeoutMs: 3_000, pollMs: 2_500, notices }),
    );
    await sleep(200);
    const [listeners] = await db().$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM pg_stat_activity
      WHERE datname = current_database() AND query = ${`LISTEN ${OUTCOME_CHANNEL}`}`;
    expect(listeners?.count).toBe(1);
    const started = performance.now();
    await inTransaction(db(), async (tx) => {
      for (const id of ids) await completeOperation(tx, id, succeeded);
    });
    const outcomes = await Promise.all(waiting);
    expect(outcomes.map((o) => o.status)).toEqual(ids.map(() => "succeeded"));
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
