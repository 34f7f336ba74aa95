import { describe, expect, it } from "vitest";
import {
  allocate,
  countedNowW,
  drawChangedMaterially,
  fromDeciA,
  plan,
  toDeciA,
  type Session,
} from "./allocate";

const V = 230;
let clock = Date.parse("2026-01-01T00:00:00Z");
/** A session started one minute after the previous one, on 3 phases, 0 to 22,080 W. */
function s(key: number, o: Partial<Session> = {}): Session {
  clock += 60_000;
  return {
    key,
    startedAt: new Date(clock),
    minW: 0,
    maxW: 22_080,
    phases: 3,
    drawW: null,
    state: "installed",
    sentDeciA: null,
    believedW: 0,
    confirmed: true,
    ...o,
  };
}
const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);

describe("allocate", () => {
  it("splits the limit equally, rounding each share's current down to 0.1 A per phase", () => {
    const shares = allocate(
      100_000,
      V,
      [1, 2, 3].map((k) => s(k, { maxW: 40_000 })),
    );
    // 33,333 W on 3 × 230 V is 48.309 A: 48.3 A, i.e. 33,327 W
    expect([...shares.values()]).toEqual([33_327, 33_327, 33_327]);
    expect(toDeciA(33_333, V, 3)).toBe(483);
    expect(sum(shares)).toBeLessThanOrEqual(100_000);
  });

  it("respects phases: a 1-phase connector's current is its watts over one phase", () => {
    const shares = allocate(10_000, V, [s(1, { phases: 1, maxW: 7_360 }), s(2)]);
    // 5,000 W each: 21.7 A on one phase (4,991 W), 7.2 A on three (4,968 W)
    expect(shares.get(1)).toBe(fromDeciA(217, V, 1));
    expect(shares.get(1)).toBe(4_991);
    expect(shares.get(2)).toBe(4_968);
  });

  it("caps at the connector's maximum and gives the rest to the others", () => {
    const shares = allocate(100_000, V, [s(1, { maxW: 7_360, phases: 1 }), s(2), s(3)]);
    expect(shares.get(1)).toBe(7_360);
    // (100,000 − 7,360) / 2 = 46,320 > 22,080: both capped; the rest is unused
    expect(shares.get(2)).toBe(22_080);
    expect(shares.get(3)).toBe(22_080);
    const tight = allocate(30_000, V, [s(1, { maxW: 4_000 }), s(2), s(3)]);
    expect(tight.get(1)).toBe(fromDeciA(toDeciA(4_000, V, 3), V, 3));
    expect(tight.get(2)).toBe(fromDeciA(toDeciA(13_000, V, 3), V, 3));
  });

  it("caps at the measured draw plus the headroom, and gives the headroom back as the draw rises", () => {
    const low = allocate(33_000, V, [s(1, { drawW: 3_000 }), s(2), s(3)]);
    // 3 kW + 1 kW headroom; the other two share the rest
    expect(low.get(1)).toBe(fromDeciA(toDeciA(4_000, V, 3), V, 3));
    expect(low.get(2)).toBe(fromDeciA(toDeciA(14_500, V, 3), V, 3));
    expect(drawChangedMaterially(3_000, 3_400)).toBe(false);
    expect(drawChangedMaterially(3_000, 3_600)).toBe(true);
    const back = allocate(33_000, V, [s(1, { drawW: 10_000 }), s(2), s(3)]);
    // 10 kW + 2.5 kW headroom (a quarter) is above the equal share: it gets the equal share again
    expect(back.get(1)).toBe(fromDeciA(toDeciA(11_000, V, 3), V, 3));
  });

  it("gives minimums first; when they exceed the limit, the earliest sessions keep theirs and the rest are paused", () => {
    const sessions = [1, 2, 3, 4].map((k) => s(k, { minW: 4_140 }));
    const shares = allocate(10_000, V, sessions);
    // two minimums fit (8,280); the remaining 1,720 is split between them
    expect(shares.get(1)).toBe(fromDeciA(toDeciA(5_000, V, 3), V, 3));
    expect(shares.get(2)).toBe(fromDeciA(toDeciA(5_000, V, 3), V, 3));
    expect(shares.get(3)).toBe(0);
    expect(shares.get(4)).toBe(0);
    // the order is the start, not the key
    const reversed = allocate(5_000, V, [
      { ...sessions[3]!, startedAt: new Date(0) },
      sessions[0]!,
    ]);
    expect(reversed.get(4)).toBe(4_968);
    expect(reversed.get(1)).toBe(0);
  });

  it("holds a rejected charger at its maximum and divides only the rest", () => {
    const shares = allocate(50_000, V, [s(1, { state: "rejected", maxW: 11_040 }), s(2), s(3)]);
    expect(shares.get(1)).toBe(0);
    expect(shares.get(2)! + shares.get(3)! + 11_040).toBeLessThanOrEqual(50_000);
    expect(shares.get(2)).toBe(fromDeciA(toDeciA(19_480, V, 3), V, 3));
  });
});

describe("countedNowW", () => {
  it("counts rejected at the maximum, pending at the larger of old and new, unknown and installed at what may run", () => {
    expect(countedNowW(s(1, { state: "rejected", believedW: 5_000 }), V)).toBe(22_080);
    expect(countedNowW(s(1, { state: "pending", believedW: 5_000, sentDeciA: 100 }), V)).toBe(
      6_900,
    );
    expect(countedNowW(s(1, { state: "pending", believedW: 9_000, sentDeciA: 100 }), V)).toBe(
      9_000,
    );
    // unknown: the recomputation keeps the larger of old and new in believedW
    expect(countedNowW(s(1, { state: "unknown", believedW: 9_000, sentDeciA: 100 }), V)).toBe(
      9_000,
    );
    // nothing confirmed yet: the connector's maximum
    expect(countedNowW(s(1, { state: null, believedW: 22_080 }), V)).toBe(22_080);
  });
});

describe("plan", () => {
  it("on a session's start: the others' decreases (its maximum held back) and what they leave free for it go at once; the shares follow once answered", () => {
    // two sessions at 50 kW each (72.4 A); a third starts, nothing confirmed: counted at 22,080
    const a = s(1, { maxW: 60_000, believedW: 49_956, sentDeciA: 724 });
    const b = s(2, { maxW: 60_000, believedW: 49_956, sentDeciA: 724 });
    const c = s(3, { state: null, believedW: 22_080, confirmed: false });
    const first = plan(100_000, V, [a, b, c]);
    const sent = new Map(first.send.map((x) => [x.key, x]));
    // a and b divide what c's maximum leaves: (100,000 − 22,080) / 2
    expect(sent.get(1)!.w).toBe(fromDeciA(toDeciA(38_960, V, 3), V, 3));
    expect(sent.get(2)!.w).toBe(sent.get(1)!.w);
    // c gets only what a's and b's current limits leave: 88 W, i.e. 0.1 A on three phases (69 W)
    expect(sent.get(3)).toEqual({ key: 3, deciA: 1, w: 69 });
    const share = first.shares.find((x) => x.key === 3)!;
    expect(share.allocatedW).toBe(fromDeciA(toDeciA(22_080, V, 3), V, 3));
    expect(share.heldBackW).toBe(22_080 - share.allocatedW);
    // the limits the chargers hold, whatever order they accept in, stay within the limit
    expect(49_956 + 49_956 + sent.get(3)!.w).toBeLessThanOrEqual(100_000);

    // all answered: c is confirmed at 0.1 A and goes up to its maximum; a and b keep theirs
    const done = plan(100_000, V, [
      { ...a, believedW: sent.get(1)!.w, sentDeciA: sent.get(1)!.deciA },
      { ...b, believedW: sent.get(2)!.w, sentDeciA: sent.get(2)!.deciA },
      { ...c, state: "installed", confirmed: true, believedW: 69, sentDeciA: 1 },
    ]);
    expect(done.send.map((x) => x.key)).toEqual([3]);
    expect(done.send.find((x) => x.key === 3)!.w).toBe(fromDeciA(toDeciA(22_080, V, 3), V, 3));
    expect(done.countedW).toBeLessThanOrEqual(100_000);
  });

  it("holds a charger that has not confirmed its share at its maximum while dividing among the confirmed ones", () => {
    const shares = allocate(50_000, V, [
      s(1),
      s(2),
      s(3, { state: "pending", confirmed: false, sentDeciA: 100, believedW: 22_080 }),
    ]);
    // 50,000 − 22,080 split between the confirmed two
    expect(shares.get(1)).toBe(fromDeciA(toDeciA(13_960, V, 3), V, 3));
    expect(shares.get(3)).toBe(fromDeciA(toDeciA(50_000 / 3, V, 3), V, 3));
  });

  it("never sends an increase that would put the sum of what is counted above the limit", () => {
    // b's decrease is still pending at 40 kW (counted so); a's increase would make 110 kW
    const a = s(1, { maxW: 70_000, believedW: 40_000, sentDeciA: toDeciA(40_000, V, 3) });
    const b = s(2, {
      maxW: 70_000,
      state: "pending",
      believedW: 60_000,
      sentDeciA: toDeciA(20_000, V, 3),
    });
    const p = plan(100_000, V, [a, b, s(3, { state: "rejected", maxW: 10_000 })]);
    expect(p.send).toEqual([]);
    expect(p.countedW).toBe(110_000 - 0); // 40 + 60 + 10: what the chargers may hold now
    // once b's decrease is installed, a's increase goes
    const after = plan(100_000, V, [
      a,
      { ...b, state: "installed", believedW: 20_000 },
      s(3, { state: "rejected", maxW: 10_000 }),
    ]);
    expect(after.send.map((x) => x.key)).toContain(1);
    expect(after.countedW).toBeLessThanOrEqual(100_000);
  });

  it("does not send a share that moved by less than 0.1 A, nor to a pending, rejected or offline charger", () => {
    const same = s(1, {
      maxW: 60_000,
      believedW: fromDeciA(toDeciA(50_000, V, 3), V, 3),
      sentDeciA: toDeciA(50_000, V, 3),
    });
    const p = plan(50_000, V, [same]);
    expect(p.send).toEqual([]);
    const offline = plan(50_000, V, [s(2, { state: null, believedW: 22_080, online: false })]);
    expect(offline.send).toEqual([]);
    const rejected = plan(50_000, V, [s(3, { state: "rejected", sentDeciA: 10 })]);
    expect(rejected.send).toEqual([]);
    expect(rejected.shares[0]!.heldBackW).toBe(22_080);
  });
});
