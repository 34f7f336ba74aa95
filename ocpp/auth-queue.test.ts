import { describe, expect, it } from "vitest";
import { createCheckQueue, type Turn } from "./auth-queue";

const options = { concurrency: 1, maxWaitingPerAddress: 3, maxWaiting: 5, maxWaitMs: 5_000 };

function granted(turn: Turn): () => void {
  if (!turn.ok) throw new Error(`refused: ${turn.reason}`);
  return turn.done;
}

describe("password check turns", () => {
  it("serves addresses round-robin: a newcomer goes before the rest of a flood's line", async () => {
    const queue = createCheckQueue(options);
    const order: string[] = [];
    const first = granted(await queue.take("flood", "n0"));
    const waiters = [
      ...["n1", "n2", "n3"].map((name) => queue.take("flood", name)),
      queue.take("charger", "mine"),
    ].map((p, i) =>
      p.then((turn) => {
        order.push(i === 3 ? "charger" : `flood-${i + 1}`);
        granted(turn)();
      }),
    );
    first();
    await Promise.all(waiters);
    expect(order).toEqual(["flood-1", "charger", "flood-2", "flood-3"]);
  });

  it("one turn per station name at a time; bounded lines; a waiter that leaves frees its place", async () => {
    const queue = createCheckQueue(options);
    const running = granted(await queue.take("a", "station-1"));
    expect(await queue.take("b", "station-1")).toEqual({ ok: false, reason: "name" });
    const waiting = ["x", "y", "z"].map((name) => queue.take("a", name));
    expect(await queue.take("a", "w")).toEqual({ ok: false, reason: "address" });
    const aborted = new AbortController();
    const leaving = queue.take("b", "v", aborted.signal);
    queue.take("c", "u").then(
      (turn) => void (turn.ok && turn.done()),
      () => {},
    );
    expect(await queue.take("d", "t")).toEqual({ ok: false, reason: "busy" });
    aborted.abort();
    expect(await leaving).toEqual({ ok: false, reason: "gone" });
    expect(queue.stats()).toEqual({ running: 1, waiting: 4 });
    running();
    for (const turn of waiting) granted(await turn)();
    expect(queue.stats()).toEqual({ running: 0, waiting: 0 });
    // station-1's turn ended, so it may take another
    granted(await queue.take("b", "station-1"))();
  });

  it("gives up on a turn that does not come within maxWaitMs", async () => {
    const queue = createCheckQueue({ ...options, maxWaitMs: 50 });
    const running = granted(await queue.take("a", "one"));
    expect(await queue.take("b", "two")).toEqual({ ok: false, reason: "busy" });
    running();
  });

  it("keeps a pace: past a twentieth of a second's turns, one every 1/perSecond s, still round-robin", async () => {
    // 50 a second: 2 at once (a twentieth of 50, rounded down), then one every 20 ms
    const queue = createCheckQueue({
      concurrency: Infinity,
      maxWaitingPerAddress: 20,
      maxWaiting: 20,
      maxWaitMs: 5_000,
      perSecond: 50,
    });
    const started = performance.now();
    const order: string[] = [];
    const at: number[] = [];
    const take = (address: string, name: string) =>
      queue.take(address, name).then((turn) => {
        granted(turn)();
        order.push(name);
        at.push(performance.now() - started);
      });
    const flood = Array.from({ length: 9 }, (_, i) => take("flood", `f${i}`));
    const mine = take("charger", "mine");
    await Promise.all([...flood, mine]);
    // 10 turns at 50 a second, 2.5 held at the start: the last no sooner than 10 + 7 × 20 ms
    // (without the pace, all within a millisecond or two)
    expect(Math.max(...at)).toBeGreaterThanOrEqual(145);
    // the newcomer goes after one more of the flood's, not after all of it
    expect(order.indexOf("mine")).toBeLessThanOrEqual(3);
    expect(queue.stats()).toEqual({ running: 0, waiting: 0 });
  });
});
