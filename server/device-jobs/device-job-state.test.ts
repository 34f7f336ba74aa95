import { describe, expect, it } from "vitest";
import { readState, SILENCE_MS } from "./device-job-schema";

const job = (o: {
  state: string;
  createdAt: Date;
  lastStatusAt?: Date | null;
  retrieveAt?: string;
}) =>
  ({
    state: o.state,
    createdAt: o.createdAt,
    lastStatusAt: o.lastStatusAt ?? null,
    request: o.retrieveAt ? { retrieve_at: o.retrieveAt } : {},
  }) as unknown as Parameters<typeof readState>[0];

describe("a device job's state as read", () => {
  const t0 = new Date("2026-11-01T00:00:00Z");
  const after = (ms: number) => new Date(t0.getTime() + ms);

  it("reads an open job the charger has been silent about for 24 h as unknown", () => {
    expect(readState(job({ state: "scheduled", createdAt: t0 }), after(SILENCE_MS - 1))).toBe(
      "scheduled",
    );
    expect(readState(job({ state: "scheduled", createdAt: t0 }), after(SILENCE_MS + 1))).toBe(
      "unknown",
    );
    // the silence counts from the last status
    const progressing = job({
      state: "in_progress",
      createdAt: t0,
      lastStatusAt: after(SILENCE_MS),
    });
    expect(readState(progressing, after(SILENCE_MS + 1000))).toBe("in_progress");
    expect(readState(progressing, after(2 * SILENCE_MS + 1))).toBe("unknown");
  });

  it("counts from a future retrieve time, and never reads a final job as unknown", () => {
    const later = job({
      state: "scheduled",
      createdAt: t0,
      retrieveAt: after(3 * SILENCE_MS).toISOString(),
    });
    expect(readState(later, after(2 * SILENCE_MS))).toBe("scheduled");
    expect(readState(later, after(4 * SILENCE_MS + 1))).toBe("unknown");
    for (const state of ["installed", "uploaded", "failed", "rejected"])
      expect(readState(job({ state, createdAt: t0 }), after(10 * SILENCE_MS))).toBe(state);
  });
});
