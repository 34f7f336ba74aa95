import { describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client";
import { TRANSACTION_COLUMNS } from "./transaction-started";

/** The names a column list gives its values: `x AS "name"` gives name, a bare `x` gives x. */
function namesOf(columns: Prisma.Sql): string[] {
  return columns.sql
    .split(",")
    .map((column) => column.trim())
    .map((column) => /\bAS\s+"([^"]+)"$/i.exec(column)?.[1] ?? column);
}

describe("the columns a raw start statement returns", () => {
  it("name every scalar field of the Transaction model, and nothing else", () => {
    const listed = namesOf(TRANSACTION_COLUMNS);
    const fields = Object.values(Prisma.TransactionScalarFieldEnum) as string[];
    const missing = fields.filter((field) => !listed.includes(field));
    const extra = listed.filter((name) => !fields.includes(name));
    expect({ missing, extra }, "TRANSACTION_COLUMNS in transaction-started.ts").toEqual({
      missing: [],
      extra: [],
    });
    expect(new Set(listed).size, "a column listed twice").toBe(listed.length);
  });
});
