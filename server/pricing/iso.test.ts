import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { iso } from "./iso";

describe("iso", () => {
  it("formats instants exactly as Date#toISOString", () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_000_000_000_000, max: 260_000_000_000_000 }), (ms) => {
        expect(iso(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
    for (const at of [
      "2024-02-29T23:59:59.999Z",
      "2100-03-01T00:00:00.000Z",
      "1999-12-31T12:00:00.001Z",
    ]) {
      expect(iso(Date.parse(at))).toBe(at);
    }
  });
});
