import { describe, expect, it } from "vitest";
import {
  allocate,
  bandW,
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

  describe("the tolerance band", () => {
    const LIMIT = 1_000_000;
    const equal = (n: number) => fromDeciA(toDeciA(LIMIT / n, V, 3), V, 3);
    /** `n` confirmed sessions holding `w` each (installed) */
    const holding = (n: number, w: (k: number) => number) =>
      Array.from({ length: n }, (_, i) => {
        const deciA = toDeciA(w(i + 1), V, 3);
        return s(i + 1, { believedW: fromDeciA(deciA, V, 3), sentDeciA: deciA });
      });
    /** the answers to a plan's sends, all installed */
    const answered = (sessions: Session[], p: ReturnType<typeof plan>) =>
      sessions.map((x) => {
        const sent = p.send.find((y) => y.key === x.key);
        return sent
          ? {
              ...x,
              state: "installed" as const,
              confirmed: true,
              believedW: sent.w,
              sentDeciA: sent.deciA,
            }
          : x;
      });
    /** the most the chargers may hold while the sends are answered in any order */
    const worstWhileAnswering = (sessions: Session[], p: ReturnType<typeof plan>) =>
      sessions.reduce((sum, x) => {
        const sent = p.send.find((y) => y.key === x.key);
        const now = countedNowW(x, V);
        return sum + (sent ? (x.confirmed ? Math.max(now, sent.w) : sent.w) : now);
      }, 0);

    it("is the larger of 1 A on the session's phases and 10 % of its fair share", () => {
      expect(bandW(10_000, V, 3)).toBe(1_000);
      expect(bandW(3_000, V, 3)).toBe(690);
      expect(bandW(3_000, V, 1)).toBe(300);
      expect(bandW(1_000, V, 1)).toBe(230);
      expect(bandW(10_000, V, 3, { minA: 2, fraction: 0.05 })).toBe(1_380);
    });

    it("a start among 100 sessions at their shares sends to few (the new one's share in two rounds), never above the limit", () => {
      const others = holding(100, () => LIMIT / 100);
      const fresh = s(101, { state: null, believedW: 22_080, confirmed: false });
      const first = plan(LIMIT, V, [...others, fresh]);
      // the new session's fair share (9,894 W of 101) is made room for by decreasing as few
      // sessions as it takes, each to its fair share less the band (about 1 kW): 10, not 100
      const decreased = first.send.filter((x) => x.key !== 101);
      expect(decreased.length).toBeGreaterThan(0);
      expect(decreased.length).toBeLessThanOrEqual(12);
      const fair = equal(101);
      for (const d of decreased) {
        expect(d.w).toBeLessThan(others[0]!.believedW);
        // the floor: the fair share less the band, on the 0.1 A grid (rounded up)
        expect(d.w).toBeGreaterThanOrEqual(fair - bandW(fair, V, 3));
      }
      // the new one gets what the others' current limits leave free (the rounding: 0.1 A at most)
      expect(first.send.find((x) => x.key === 101)!.w).toBeLessThanOrEqual(
        LIMIT - 100 * others[0]!.believedW,
      );
      expect(worstWhileAnswering([...others, fresh], first)).toBeLessThanOrEqual(LIMIT);

      // the answers: the new one (confirmed) goes up to its fair share, nothing else moves
      const round1 = answered([...others, fresh], first);
      const second = plan(LIMIT, V, round1);
      expect(second.send.map((x) => x.key)).toEqual([101]);
      expect(second.send[0]!.w).toBe(fair);
      expect(worstWhileAnswering(round1, second)).toBeLessThanOrEqual(LIMIT);
      // and then it is at rest: every session within the band of its fair share
      const settled = answered(round1, second);
      expect(plan(LIMIT, V, settled).send).toEqual([]);
      for (const x of settled)
        expect(Math.abs(x.believedW - fair)).toBeLessThanOrEqual(bandW(fair, V, 3));
      expect(settled.reduce((sum, x) => sum + x.believedW, 0)).toBeLessThanOrEqual(LIMIT);
    });

    it("with slack, a start's share goes in the first round and nobody else is sent anything", () => {
      // 99 sessions at the share of 100: a stop left about 10 kW unused (within the band)
      const others = holding(99, () => LIMIT / 100);
      const fresh = s(100, { state: null, believedW: 22_080, confirmed: false });
      const p = plan(LIMIT, V, [...others, fresh]);
      expect(p.send).toEqual([{ key: 100, deciA: toDeciA(equal(100), V, 3), w: equal(100) }]);
      expect(worstWhileAnswering([...others, fresh], p)).toBeLessThanOrEqual(LIMIT);
    });

    it("takes room from the sessions furthest above their fair share first", () => {
      // fair share of 101 is 9,894 W; sessions 1-5 hold 10,5xx (within the band), the rest less
      const others = holding(100, (k) => (k <= 5 ? 10_500 : (LIMIT - 5 * 10_500) / 95));
      const fresh = s(101, { state: null, believedW: 22_080, confirmed: false });
      const p = plan(LIMIT, V, [...others, fresh]);
      const keys = p.send.map((x) => x.key).filter((k) => k !== 101);
      // 6,227 W are needed; each of them gives 1,587 W (10,488 down to the floor, 8,901): four suffice
      expect(keys).toEqual([1, 2, 3, 4]);
      expect(worstWhileAnswering([...others, fresh], p)).toBeLessThanOrEqual(LIMIT);
    });

    it("keeps room for a new session whose first share (what was free) is still pending", () => {
      // ten sessions far below their fair share want theirs; a new one was sent 0 A (nothing
      // free) and has not answered: its fair share is kept for it, taken from the others now
      const others = holding(100, (k) => (k <= 90 ? 10_000 : 8_000));
      const fresh = s(101, { state: "pending", believedW: 22_080, sentDeciA: 0, confirmed: false });
      const p = plan(LIMIT, V, [...others, fresh]);
      const after = answered(others, p).reduce((sum, x) => sum + x.believedW, 0);
      const fair = equal(101);
      expect(p.send.some((x) => x.w < 9_000 && x.key <= 90)).toBe(true);
      expect(after + fair).toBeLessThanOrEqual(LIMIT);
    });

    it("a stop hands its power out only to those it moves beyond the band", () => {
      // 100 sessions at the share of 100; one stops: each would get 1 % more, within the band
      const stayed = holding(100, () => LIMIT / 100).slice(1);
      expect(plan(LIMIT, V, stayed).send).toEqual([]);
      // ten of them were taken down to the band's floor for an earlier start: a stop raises the
      // fair share beyond their band, so they (and only they) go up to it
      const fair99 = equal(99);
      const floor100 = fromDeciA(toDeciA(equal(100) - bandW(equal(100), V, 3), V, 3), V, 3);
      const mixed = holding(99, (k) => (k <= 10 ? floor100 : LIMIT / 100));
      const p = plan(LIMIT, V, mixed);
      expect(p.send.map((x) => x.key).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 10 }, (_, i) => i + 1),
      );
      for (const x of p.send) expect(x.w).toBe(fair99);
      expect(p.countedW).toBeLessThanOrEqual(LIMIT);
      // the limit's own band: none (0 A, 0 %) sends every fair share that moved, as before
      expect(plan(LIMIT, V, stayed, { minA: 0, fraction: 0 }).send).toHaveLength(99);
      // a lowered limit is taken from as few as it needs: 5 kW from five sessions
      const lowered = plan(
        LIMIT - 5_000,
        V,
        holding(100, () => LIMIT / 100),
      );
      expect(lowered.send.length).toBeLessThanOrEqual(6);
      for (const x of lowered.send) expect(x.w).toBeLessThan(LIMIT / 100);
    });
  });
});
