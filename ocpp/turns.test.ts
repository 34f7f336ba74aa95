import { describe, expect, it } from "vitest";
import { createTurns } from "./turns";

const tick = () => new Promise((r) => setTimeout(r, 1));

describe("createTurns", () => {
  it("runs at most `concurrency` tasks at once, the rest in arrival order, each to its end", async () => {
    const turns = createTurns(3);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        turns.run(async () => {
          started.push(i);
          running += 1;
          most = Math.max(most, running);
          await tick();
          running -= 1;
          return i * 2;
        }),
      ),
    );
    expect(most).toBe(3);
    expect(started).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => i * 2));
    expect(turns.size()).toBe(0);
  });

  it("a task that fails gives its turn to the next and its caller gets the error", async () => {
    const turns = createTurns(1);
    const failing = turns.run(() => Promise.reject(new Error("boom")));
    const next = turns.run(() => Promise.resolve("next"));
    await expect(failing).rejects.toThrow("boom");
    await expect(next).resolves.toBe("next");
  });
});
