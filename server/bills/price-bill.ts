import type { DbTx } from "../db";
import { DomainError } from "../errors";
import { asJson } from "../lib/json";
import { Prisma, type Bill } from "../generated/prisma/client";
import {
  applyAdjustments,
  isPricingError,
  priceSession,
  priceSummary,
  quoteSession,
  type AdjustedTotal,
  type PriceResult,
  type QuoteInput,
  type SessionInput,
  type TariffSnapshot,
} from "../pricing";
import { tariffSnapshot } from "../tariffs/tariff-snapshot";

export type BillPrice = { result: PriceResult; adjusted: AdjustedTotal };

/** Tariff versions never change, so each is read once per process (live pricing runs often). */
const snapshots = new Map<string, TariffSnapshot>();
const MAX_CACHED = 500;

/** What pricing reads of a bill: its tariff version and its adjustments' references. */
export type PricedBill = Pick<
  Bill,
  "tariffId" | "tariffVersion" | "pricingGroup" | "merchantValidation"
>;

/** The tariff version fixed on the bill. */
export async function billTariff(tx: DbTx, bill: PricedBill): Promise<TariffSnapshot> {
  const key = `${bill.tariffId}:${bill.tariffVersion}`;
  const cached = snapshots.get(key);
  if (cached) return cached;
  const version = await tx.tariffVersion.findUniqueOrThrow({
    where: { tariffId_version: { tariffId: bill.tariffId, version: bill.tariffVersion } },
  });
  if (snapshots.size >= MAX_CACHED) snapshots.clear();
  const snapshot = tariffSnapshot(version);
  snapshots.set(key, snapshot);
  return snapshot;
}

const adjust = (bill: PricedBill, snapshot: TariffSnapshot, result: PriceResult): BillPrice => ({
  result,
  adjusted: applyAdjustments(result, {
    rules: snapshot.rules,
    pricing_group: bill.pricingGroup,
    merchant_validation: bill.merchantValidation,
  }),
});

/**
 * A session priced for a bill: the engine on the bill's tariff version, then its adjustments
 * (group discount, then merchant validation, then the session cost cap). Exact, as a final bill
 * is; per-period detail is left out (a bill keeps the breakdown, not the periods).
 */
export function priceBillSession(
  bill: PricedBill,
  snapshot: TariffSnapshot,
  session: SessionInput,
): BillPrice {
  return adjust(bill, snapshot, priceSession(snapshot, session, { periods: false }));
}

/** A simulated bill: the quote of energy drawn evenly over a duration. */
export function quoteBill(bill: Bill, snapshot: TariffSnapshot, input: QuoteInput): BillPrice {
  return adjust(bill, snapshot, quoteSession(snapshot, input, { periods: false }));
}

/**
 * Engine refusals in the API's words: a tariff window the session started outside is 409
 * `tariff_not_valid_at`; anything about the session's times is `whenTimesInvalid`.
 */
export function pricedOr<T>(run: () => T, whenTimesInvalid: (reason: string) => DomainError): T {
  try {
    return run();
  } catch (error) {
    if (!isPricingError(error)) throw error;
    if (error.code === "tariff_not_valid_at")
      throw new DomainError("tariff_not_valid_at", error.message, error.details ?? {});
    throw whenTimesInvalid(error.message);
  }
}

/** The columns a price fixes on a final bill. */
export function finalColumns(bill: Bill, { result, adjusted }: BillPrice, durationSeconds: number) {
  const { before_minor, group_discount, merchant_validation, cost_cap } = adjusted;
  return {
    energyWh: result.energy_wh,
    durationSeconds,
    subtotalMinor: result.total.incl_vat_minor,
    priceSummary: priceSummary(result),
    totalMinor: adjusted.total_minor,
    adjustments: asJson({ before_minor, group_discount, merchant_validation, cost_cap }),
    costBreakdown:
      bill.billingVersion === "elements-v1"
        ? asJson({
            energy_wh: result.energy_wh,
            dimensions: result.dimensions,
            price_bound: result.price_bound,
            total: result.total,
            activity: result.activity,
            warnings: result.warnings,
          })
        : Prisma.DbNull,
  };
}
