import { rat, toFixed } from "../pricing/rational";

/** Decimal places of every decimal string in a meter sample, and of every `energy_kwh`. */
export const DECIMALS = 3;

/** Integer Wh as the exact kWh string of every API field (`energy_kwh`): 1234 → "1.234". */
export function kwhFromWh(wh: number): string {
  if (!Number.isSafeInteger(wh)) throw new RangeError(`not an integer Wh: ${wh}`);
  return toFixed(rat(BigInt(wh), 1000n), DECIMALS);
}
