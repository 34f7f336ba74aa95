import type { TariffVersion } from "../generated/prisma/client";
import type { TariffSnapshot } from "../pricing";

/**
 * A tariff version's snapshot, typed: the one reader of `tariff_versions.snapshot`. A snapshot is
 * validated (`validateTariff`) before it is stored and never changed after, so it is read as
 * stored, not parsed again on every price.
 */
export function tariffSnapshot(version: Pick<TariffVersion, "snapshot">): TariffSnapshot {
  return version.snapshot as unknown as TariffSnapshot;
}
