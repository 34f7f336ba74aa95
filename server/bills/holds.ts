/** Card holds: $0.50 to $100, USD only (spec section 8). */
export const HOLD_MIN_MINOR = 50;
export const HOLD_MAX_MINOR = 10_000;
/** The live cap's margin leaves at least the smallest hold to charge against. */
export const HOLD_MARGIN_MAX_MINOR = HOLD_MAX_MINOR - HOLD_MIN_MINOR;
