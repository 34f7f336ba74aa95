import { describe, expect, it } from "vitest";
import { db } from "../db";

describe("room for HOT updates", () => {
  it("transactions and stations leave 30% of each page free for the updates every message makes", async () => {
    const rows = await db().$queryRaw<{ relname: string; reloptions: string[] | null }[]>`
      SELECT relname, reloptions FROM pg_class
       WHERE relname IN ('transactions', 'stations') AND relkind = 'r' ORDER BY relname`;
    expect(rows).toEqual([
      { relname: "stations", reloptions: ["fillfactor=70"] },
      { relname: "transactions", reloptions: ["fillfactor=70"] },
    ]);
  });
});
