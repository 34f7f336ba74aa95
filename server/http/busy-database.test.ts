/**
 * A request that finds every pooled database connection busy past its wait answers 503
 * `service_unavailable` with `Retry-After` (load, nothing written), not 500 `internal_error`.
 */
import { describe, expect, it } from "vitest";
import { db } from "../db";
import { asDomainError } from "./execute";

describe("a database with every connection busy", () => {
  it("is 503 service_unavailable with a retry hint, not 500", async () => {
    // the pool holds 10: ten transactions sleep on them while an eleventh waits 100 ms
    const holders = Array.from({ length: 10 }, () =>
      db().$transaction(async (tx) => tx.$executeRaw`SELECT pg_sleep(1.5)`, { timeout: 10_000 }),
    );
    await new Promise((r) => setTimeout(r, 300));
    const refused = await db()
      .$transaction(async (tx) => tx.$executeRaw`SELECT 1`, { maxWait: 100 })
      .then(
        () => null,
        (error: unknown) => error,
      );
    await Promise.all(holders);
    expect(refused, "the eleventh transaction got a connection").not.toBeNull();
    const answer = asDomainError(refused, { requestId: "req_test", method: "POST", path: "/v1/x" });
    expect(answer.code).toBe("service_unavailable");
    expect(answer.message).toMatch(/busy/);
  });
});
