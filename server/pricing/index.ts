/**
 * The pricing engine: pure functions, no database or framework. See ./README.md for the model and
 * every decision OCPI 2.2.1 leaves open.
 */
export {
  type TariffSnapshot,
  type TariffInput,
  type TariffElement,
  type PriceComponent,
  type TariffRestrictions,
  type TariffRules,
  type TariffIssue,
  type TariffValidation,
  tariffSnapshotSchema,
  ocpiTariffFields,
  validateTariff,
} from "./tariff-schema";
export { OCPI_TARIFF_FIELDS } from "./ocpi-fields";
export type {
  Instant,
  MeterReading,
  MeterSession,
  ReservationInput,
  ChargingPeriod,
  ChargingPeriodsSession,
  CdrDimension,
  CdrDimensionType,
  SessionInput,
  ActivityKind,
} from "./session";
export type {
  PriceResult,
  DimensionCost,
  PricedDimension,
  ActivityBreakdown,
  ActivityInterval,
  PeriodDetail,
} from "./price-result";
export { type PriceOptions, priceSession } from "./engine";
export {
  type AdjustmentOptions,
  type AdjustedTotal,
  type AppliedDiscount,
  applyAdjustments,
} from "./adjustments";
export { type QuoteInput, quoteSession, pricingSummary, priceSummary, isComplex } from "./quote";
export { type PricingErrorCode, PricingError, isPricingError } from "./errors";
