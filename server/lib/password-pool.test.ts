import { afterAll, describe, expect, it } from "vitest";
import { createPasswordPool } from "./password-pool";
import { verifyPassword } from "./passwords";

const pool = createPasswordPool(2);
afterAll(() => pool.close());

describe("the password pool", () => {
  it("hashes in the product's scrypt format with today's parameters, each with its own salt, in order", async () => {
    const passwords = ["pool-password-00001", "pool-password-00002", "pool-password-00001"];
    const hashes = await pool.hashAll(passwords);
    expect(hashes).toHaveLength(3);
    for (const hash of hashes)
      expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(new Set(hashes).size).toBe(3); // the same password twice: two salts, two hashes
    for (const [i, password] of passwords.entries())
      expect(await verifyPassword(password, hashes[i]!)).toBe(true);
    expect(await verifyPassword("pool-password-00002", hashes[0]!)).toBe(false);
  });

  it("keeps the calling thread free while it hashes, and counts its backlog", async () => {
    const work = pool.hashAll(Array.from({ length: 8 }, (_, i) => `pool-backlog-${i}-padding`));
    expect(pool.backlog()).toBe(8);
    // timers on this thread keep firing while the threads hash
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    await work;
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
    expect(pool.backlog()).toBe(0);
  });

  it("refuses work once closed", async () => {
    const closing = createPasswordPool(1);
    await closing.hashAll(["pool-closing-password-1"]);
    await closing.close();
    await expect(closing.hashAll(["pool-closing-password-2"])).rejects.toThrow(/closed/);
  });
});
