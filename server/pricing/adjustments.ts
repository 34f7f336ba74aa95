/**
 * Bill adjustments from a tariff's `rules`, compounding in the order of spec section 9:
 * 1. the group discount of the bill's `pricing_group`, on the priced total;
 * 2. the bill's `merchant_validation`, on what is left after the group discount;
 * 3. the session cost cap, on what is left after both.
 *
 * Adjustments act on the amount the customer pays (the total incl. VAT, integer cents). A
 * percentage discount is rounded once, half up, to whole cents; no step takes the amount below 0.
 */
import type { PriceResult } from "./price-result";
import { exact, int, mul, rat, roundHalfUp } from "./rational";
import type { TariffRules } from "./tariff-schema";

export interface AdjustmentOptions {
  rules?: TariffRules | undefined;
  pricing_group?: string | null | undefined;
  merchant_validation?: string | null | undefined;
}

export interface AppliedDiscount {
  /** The pricing group or the validation code. */
  reference: string;
  percent_off: number | null;
  amount_off_minor: number | null;
  /** Cents taken off at this step. */
  discount_minor: number;
  /** Cents left after this step. */
  remaining_minor: number;
}

export interface AdjustedTotal {
  before_minor: number;
  group_discount: AppliedDiscount | null;
  merchant_validation: AppliedDiscount | null;
  /** Present when the rules have a cap; reduction_minor is 0 when the cap was not reached. */
  cost_cap: { cap_minor: number; reduction_minor: number } | null;
  total_minor: number;
  /** Requested references the rules do not know (the caller decides whether that is an error). */
  unmatched: ("pricing_group" | "merchant_validation")[];
}

interface Discount {
  percent_off?: number | undefined;
  amount_off_minor?: number | undefined;
}

function discountOn(amount: number, reference: string, d: Discount): AppliedDiscount {
  let off: number;
  if (d.percent_off !== undefined) {
    off = Number(roundHalfUp(mul(int(amount), mul(exact(d.percent_off), rat(1n, 100n)))));
  } else {
    off = d.amount_off_minor ?? 0;
  }
  off = Math.min(amount, Math.max(0, off));
  return {
    reference,
    percent_off: d.percent_off ?? null,
    amount_off_minor: d.amount_off_minor ?? null,
    discount_minor: off,
    remaining_minor: amount - off,
  };
}

export function applyAdjustments(
  priced: Pick<PriceResult, "total">,
  options: AdjustmentOptions,
): AdjustedTotal {
  const before = priced.total.incl_vat_minor;
  const rules = options.rules ?? {};
  const unmatched: AdjustedTotal["unmatched"] = [];
  let amount = before;

  let group: AppliedDiscount | null = null;
  if (options.pricing_group) {
    const rule = rules.group_discounts?.find((g) => g.pricing_group === options.pricing_group);
    if (rule) {
      group = discountOn(amount, rule.pricing_group, rule);
      amount = group.remaining_minor;
    } else {
      unmatched.push("pricing_group");
    }
  }

  let validation: AppliedDiscount | null = null;
  if (options.merchant_validation) {
    const rule = rules.merchant_validations?.find((v) => v.code === options.merchant_validation);
    if (rule) {
      validation = discountOn(amount, rule.code, rule);
      amount = validation.remaining_minor;
    } else {
      unmatched.push("merchant_validation");
    }
  }

  let cap: AdjustedTotal["cost_cap"] = null;
  if (rules.session_cost_cap_minor !== undefined) {
    const reduction = Math.max(0, amount - rules.session_cost_cap_minor);
    cap = { cap_minor: rules.session_cost_cap_minor, reduction_minor: reduction };
    amount -= reduction;
  }

  return {
    before_minor: before,
    group_discount: group,
    merchant_validation: validation,
    cost_cap: cap,
    total_minor: amount,
    unmatched,
  };
}
