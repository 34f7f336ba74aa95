import { PrismaPg } from "@prisma/adapter-pg";
import { describe, expect, it } from "vitest";
import { db } from "../db";
import { PrismaClient } from "../generated/prisma/client";
import { DomainError } from "../errors";
import { aTenantWithKey } from "../../testing/builders";
import { consumeRateLimit } from "./rate-limit";

describe("consumeRateLimit", () => {
  it("holds across separate database clients (separate web processes) within one window", async () => {
    const { keyId } = await aTenantWithKey();
    // A second, independent connection pool stands in for a second web process.
    const second = new PrismaClient({
      adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL! }),
    });
    const now = Date.UTC(2026, 10, 22, 10, 0, 5);
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          consumeRateLimit(i % 2 ? second : db(), keyId, 6, now),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(6);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(refused).toHaveLength(4);
      const error = refused[0]!.reason as DomainError;
      expect(error.code).toBe("rate_limited");
      expect(error.retryAfterSeconds).toBe(55);
    } finally {
      await second.$disconnect();
    }
  });

  it("starts a new count in the next minute", async () => {
    const { keyId } = await aTenantWithKey();
    const t0 = Date.UTC(2026, 10, 22, 10, 0, 59);
    await consumeRateLimit(db(), keyId, 1, t0);
    await expect(consumeRateLimit(db(), keyId, 1, t0)).rejects.toBeInstanceOf(DomainError);
    const next = await consumeRateLimit(db(), keyId, 1, t0 + 2000);
    expect(next.remaining).toBe(0);
    expect(next.resetSeconds).toBe(59);
  });
});
