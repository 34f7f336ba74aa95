import { afterAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client";
import { newDb, queryPrepared, queryRows } from "../db";
import { inTransaction } from "./retry";
import { preparedName } from "./prepared";

// one connection, so every statement below and the catalog read run on the same session
const client = newDb(process.env.DATABASE_URL!, { max: 1 });
afterAll(() => client.$disconnect());

const preparedHere = async () =>
  (
    await client.$queryRaw<{ name: string; statement: string }[]>`
      SELECT name, statement FROM pg_prepared_statements ORDER BY name`
  ).map((row) => row.statement.trim());

describe("statements marked PREPARED", () => {
  it("are prepared once per connection and run by name, in and out of a transaction; others are not", async () => {
    const run = (n: number) => client.$queryRaw<{ doubled: number }[]>`
      /* prepared */ SELECT ${n}::int * 2 AS doubled`;
    expect(await run(2)).toEqual([{ doubled: 4 }]);
    expect(await run(5)).toEqual([{ doubled: 10 }]);
    await client.$queryRaw`SELECT ${1}::int AS unmarked`;
    const marked = (await preparedHere()).filter((s) => s.includes("doubled"));
    expect(marked).toEqual(["/* prepared */ SELECT $1::int * 2 AS doubled"]);
    expect((await preparedHere()).some((s) => s.includes("unmarked"))).toBe(false);
    // inside an interactive transaction: the same connection's statement, by name
    const inside = await inTransaction(client, async (tx) => {
      const [a] = await tx.$queryRaw<{ doubled: number }[]>`
      /* prepared */ SELECT ${21}::int * 2 AS doubled`;
      await tx.$executeRaw`/* prepared */ SELECT set_config('app.marked', ${"yes"}, true)`;
      return a!.doubled;
    });
    expect(inside).toBe(42);
    const all = await preparedHere();
    expect(all.filter((s) => s.includes("doubled"))).toHaveLength(1);
    expect(all.filter((s) => s.includes("app.marked"))).toHaveLength(1);
  });

  it("go by name past Prisma's engine too (queryRows)", async () => {
    const row = (n: number) =>
      queryRows<{ tripled: number }>(
        client,
        Prisma.sql`/* prepared */ SELECT ${n}::int * 3 AS tripled`,
      );
    expect(await row(2)).toEqual([{ tripled: 6 }]);
    expect(await row(3)).toEqual([{ tripled: 9 }]);
    expect((await preparedHere()).filter((s) => s.includes("tripled"))).toEqual([
      "/* prepared */ SELECT $1::int * 3 AS tripled",
    ]);
  });

  it("queryPrepared marks a $1 statement: by name on the pool and in a transaction alike", async () => {
    const text = "SELECT $1::int * 4 AS quadrupled";
    expect(await queryPrepared(client, text, [2])).toEqual([{ quadrupled: 8 }]);
    const inside = await inTransaction(client, (tx) => queryPrepared(tx, text, [3]));
    expect(inside).toEqual([{ quadrupled: 12 }]);
    expect((await preparedHere()).filter((s) => s.includes("quadrupled"))).toEqual([
      `/* prepared */\n${text}`,
    ]);
  });

  it("are named by their text: the same text the same name, another text another", () => {
    const a = preparedName("/* prepared */ SELECT 1");
    expect(a).toMatch(/^p_\d+$/);
    expect(preparedName("\n      /* prepared */ SELECT 1")).not.toBe(a);
    expect(preparedName("/* prepared */ SELECT 1")).toBe(a);
    expect(preparedName("/* prepared */ SELECT 2")).not.toBe(a);
    expect(preparedName("SELECT 1 /* prepared */")).toBeUndefined();
  });
});
