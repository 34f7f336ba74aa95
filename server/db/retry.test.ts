import { describe, expect, it } from "vitest";
import { db, type DbTx } from "../db";
import { aTenantWithKey } from "../../testing/builders";
import { inTransaction, isRetryableConflict } from "./retry";

/** Two transactions that lock two tenant rows in opposite orders, both past their first lock. */
async function opposingTransactions(
  run: (fn: (tx: DbTx) => Promise<void>) => Promise<void>,
  statement: "model" | "raw",
) {
  const [one, two] = [(await aTenantWithKey()).tenantId, (await aTenantWithKey()).tenantId];
  let arrived = 0;
  let release!: () => void;
  const bothHoldTheirFirst = new Promise<void>((resolve) => (release = resolve));
  let attempts = 0;
  const lock = (tx: DbTx, id: number) =>
    statement === "model"
      ? tx.tenant.update({ where: { id }, data: { name: `locked ${id}` } })
      : tx.$executeRaw`UPDATE tenants SET name = name WHERE id = ${id}`;
  const body = (first: number, second: number) => async (tx: DbTx) => {
    attempts++;
    await lock(tx, first);
    if (++arrived === 2) release();
    await bothHoldTheirFirst;
    await lock(tx, second);
  };
  const results = await Promise.allSettled([run(body(one, two)), run(body(two, one))]);
  return { results, attempts };
}

describe("inTransaction", () => {
  it.each(["model", "raw"] as const)(
    "recognizes PostgreSQL's deadlock as Prisma reports it from a %s query",
    async (statement) => {
      const { results } = await opposingTransactions((fn) => db().$transaction(fn), statement);
      const failed = results.filter((r) => r.status === "rejected");
      expect(failed).toHaveLength(1);
      const reason = (failed[0] as PromiseRejectedResult).reason;
      expect(reason).toMatchObject({
        code: statement === "model" ? "P2034" : "P2010",
        meta: { driverAdapterError: { cause: { originalCode: "40P01" } } },
      });
      expect(isRetryableConflict(reason)).toBe(true);
    },
  );

  it("recognizes a serialization failure", async () => {
    const { tenantId } = await aTenantWithKey();
    let arrived = 0;
    let release!: () => void;
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    const results = await Promise.allSettled(
      [1, 2].map(() =>
        db().$transaction(
          async (tx) => {
            await tx.tenant.findUnique({ where: { id: tenantId } });
            if (++arrived === 2) release();
            await bothRead;
            await tx.tenant.update({ where: { id: tenantId }, data: { name: "changed" } });
          },
          { isolationLevel: "Serializable" },
        ),
      ),
    );
    const failed = results.filter((r) => r.status === "rejected");
    expect(failed).toHaveLength(1);
    const reason = (failed[0] as PromiseRejectedResult).reason;
    expect(reason).toMatchObject({
      meta: { driverAdapterError: { cause: { originalCode: "40001" } } },
    });
    expect(isRetryableConflict(reason)).toBe(true);
  });

  it("runs a transaction PostgreSQL aborted for a deadlock again, and both commit", async () => {
    const { results, attempts } = await opposingTransactions(
      (fn) => inTransaction(db(), fn),
      "model",
    );
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    expect(attempts).toBe(3); // the deadlock's victim ran twice
  });

  it("gives up after the set number of attempts, and never retries other errors", async () => {
    const { results } = await opposingTransactions((fn) => db().$transaction(fn), "raw");
    const deadlock = (results.find((r) => r.status === "rejected") as PromiseRejectedResult)
      .reason as Error;
    let runs = 0;
    await expect(
      inTransaction(
        db(),
        () => {
          runs++;
          return Promise.reject(deadlock);
        },
        { attempts: 3 },
      ),
    ).rejects.toBe(deadlock);
    expect(runs).toBe(3);

    const { tenantId, teamId } = await aTenantWithKey();
    runs = 0;
    await expect(
      inTransaction(db(), async (tx) => {
        runs++;
        await tx.tenant.create({ data: { id: tenantId, teamId, name: "dup" } });
      }),
    ).rejects.toMatchObject({ code: "P2002" });
    expect(runs).toBe(1);
    expect(isRetryableConflict(new Error("deadlock detected"))).toBe(false);
  });
});
