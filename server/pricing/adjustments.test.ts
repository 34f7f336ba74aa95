import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyAdjustments } from "./adjustments";
import type { TariffRules } from "./tariff-schema";

const priced = (incl: number) => ({ total: { excl_vat_minor: incl, incl_vat_minor: incl } });

const rules: TariffRules = {
  group_discounts: [
    { pricing_group: "fleet", percent_off: 10 },
    { pricing_group: "staff", amount_off_minor: 1000 },
  ],
  merchant_validations: [
    { code: "CAFE", amount_off_minor: 500 },
    { code: "MALL20", percent_off: 20 },
  ],
  session_cost_cap_minor: 3000,
};

describe("applyAdjustments compounds group discount, then validation, then cap", () => {
  it("worked example: 5 000 c, fleet 10%, CAFE $5, cap $30", () => {
    // 5 000 - 10% (500) = 4 500; - 500 = 4 000; cap 3 000 -> 3 000 (reduction 1 000)
    const r = applyAdjustments(priced(5000), {
      rules,
      pricing_group: "fleet",
      merchant_validation: "CAFE",
    });
    expect(r.group_discount).toMatchObject({ discount_minor: 500, remaining_minor: 4500 });
    expect(r.merchant_validation).toMatchObject({ discount_minor: 500, remaining_minor: 4000 });
    expect(r.cost_cap).toEqual({ cap_minor: 3000, reduction_minor: 1000 });
    expect(r.total_minor).toBe(3000);
  });

  it("a percentage validation applies to what the group discount left", () => {
    // 3 000 - 10% = 2 700; 20% of 2 700 = 540 -> 2 160 (not 3 000 x 70% = 2 100)
    const r = applyAdjustments(priced(3000), {
      rules,
      pricing_group: "fleet",
      merchant_validation: "MALL20",
    });
    expect(r.total_minor).toBe(2160);
  });

  it("rounds a percentage discount once, half up", () => {
    // 10% of 1 235 = 123.5 -> 124 off -> 1 111
    const r = applyAdjustments(priced(1235), { rules, pricing_group: "fleet" });
    expect(r.group_discount?.discount_minor).toBe(124);
    expect(r.total_minor).toBe(1111);
  });

  it("never goes below zero and reports unknown references", () => {
    const r = applyAdjustments(priced(700), {
      rules,
      pricing_group: "staff",
      merchant_validation: "NOPE",
    });
    expect(r.group_discount).toMatchObject({ discount_minor: 700, remaining_minor: 0 });
    expect(r.unmatched).toEqual(["merchant_validation"]);
    expect(r.total_minor).toBe(0);
  });

  it("without rules the total is unchanged", () => {
    expect(applyAdjustments(priced(1234), {}).total_minor).toBe(1234);
  });

  it("property: 0 <= total <= before, and never above the cap", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom(undefined, "fleet", "staff", "other"),
        fc.constantFrom(undefined, "CAFE", "MALL20", "other"),
        (amount, group, code) => {
          const r = applyAdjustments(priced(amount), {
            rules,
            pricing_group: group,
            merchant_validation: code,
          });
          expect(r.total_minor).toBeGreaterThanOrEqual(0);
          expect(r.total_minor).toBeLessThanOrEqual(amount);
          expect(r.total_minor).toBeLessThanOrEqual(3000);
          const steps =
            (r.group_discount?.discount_minor ?? 0) + (r.merchant_validation?.discount_minor ?? 0);
          expect(amount - steps - (r.cost_cap?.reduction_minor ?? 0)).toBe(r.total_minor);
        },
      ),
    );
  });
});
