import { afterAll, expect, it } from "vitest";
import { asyncCommitPool, db, dbPool } from "./db";
import { outcomeNotices } from "./operations/outcome-notices";
import { warmUp } from "./warm-up";

afterAll(() => outcomeNotices().close());

it("opens the pools' kept connections and the outcome listener before any request", async () => {
  await warmUp();
  // the connections the pools keep however idle (`min`), open and idle
  expect(dbPool()!.totalCount).toBeGreaterThanOrEqual(2);
  expect(dbPool()!.idleCount).toBe(dbPool()!.totalCount);
  expect(asyncCommitPool().totalCount).toBeGreaterThanOrEqual(1);
  // and a session of this database listening for operation outcomes
  const listeners = await db().$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM pg_stat_activity
     WHERE datname = current_database() AND query = 'LISTEN operation_outcomes'`;
  expect(listeners[0]!.n).toBe(1n);
});
