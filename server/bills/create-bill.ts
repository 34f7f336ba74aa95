import { db as defaultDb, type DbTx } from "../db";
import { DomainError, fieldError } from "../errors";
import { newId } from "../lib/ids";
import { applyAdjustments, isComplex } from "../pricing";
import type { CreateBillInput } from "./bill-schema";
import { newChargingToken } from "./charging-token";
import { HOLD_MIN_MINOR } from "./holds";
import { billInclude, presentBill } from "./present-bill";
import { tariffSnapshot } from "../tariffs/tariff-snapshot";

export type CreateBillOptions = {
  tenantId: number;
  /** who asked (a key or a person), kept on the bill */
  actorId: string;
  input: CreateBillInput;
  /**
   * An external session's bill (issue 14): settled by the application, so no payment of this
   * service's ever funds it, and no live cap stops it (its hold is only the project's default).
   */
  external?: { sessionId: string };
  db?: DbTx;
};

const refused = (field: string, message: string) =>
  fieldError("validation_failed", `${field} ${message}.`, [{ field, message }]);

/**
 * Creates an `open` bill on the tariff's current version and a hold, both fixed from now on
 * (spec section 4, managed paid charging rule 1). Refused with 422: a station, connector or tariff
 * that is not the tenant's; a pricing group or merchant validation the tariff's rules do not know
 * (the engine's `unmatched`); a hold above the tariff's session cost cap, or (`csms` bills) not
 * above the project's live-cap margin, which would stop the charger at once.
 */
export async function createBill({
  tenantId,
  actorId,
  input,
  external,
  db = defaultDb(),
}: CreateBillOptions) {
  const station = await db.station.findFirst({
    where: { id: input.station_id, tenantId },
    select: { id: true, connectors: { select: { id: true } } },
  });
  if (!station) throw refused("station_id", "names no station of this project");
  if (!station.connectors.some((c) => c.id === input.connector_id))
    throw new DomainError(
      "connector_not_found",
      "connector_id names no connector of the station.",
      {
        fields: [{ field: "connector_id", message: "names no connector of the station" }],
      },
    );
  const tariff = await db.tariff.findFirst({
    where: { id: input.tariff_id, tenantId, deletedAt: null },
    select: { currentVersion: true },
  });
  if (!tariff) throw refused("tariff_id", "names no tariff of this project");
  const version = await db.tariffVersion.findUniqueOrThrow({
    where: { tariffId_version: { tariffId: input.tariff_id, version: tariff.currentVersion } },
  });
  const snapshot = tariffSnapshot(version);
  const { unmatched } = applyAdjustments(
    { total: { excl_vat_minor: 0, incl_vat_minor: 0 } },
    {
      rules: snapshot.rules,
      pricing_group: input.pricing_group,
      merchant_validation: input.merchant_validation,
    },
  );
  if (unmatched.length)
    throw fieldError(
      "validation_failed",
      `The tariff's rules do not know this ${unmatched.join(" or ")}.`,
      unmatched.map((field) => ({
        field,
        message:
          field === "pricing_group"
            ? "the tariff has no group discount for this pricing group"
            : "the tariff has no merchant validation with this code",
      })),
    );
  const tenant = await db.tenant.findUniqueOrThrow({ where: { id: tenantId } });
  const cap = snapshot.rules?.session_cost_cap_minor;
  // No bill on this tariff can cost more than its cap, so no hold needs to be larger.
  const capHold = cap === undefined ? undefined : Math.max(cap, HOLD_MIN_MINOR);
  if (input.hold_minor !== undefined && capHold !== undefined && input.hold_minor > capHold)
    throw refused("hold_minor", `must not exceed the tariff's session cost cap (${capHold})`);
  const holdMinor = input.hold_minor ?? Math.min(tenant.defaultHoldMinor, capHold ?? Infinity);
  if (!external && input.source === "csms" && holdMinor <= tenant.holdMarginMinor)
    throw refused(
      "hold_minor",
      `must be more than the project's hold margin (${tenant.holdMarginMinor}), or the live cap stops the charger at once`,
    );
  const bill = await db.bill.create({
    data: {
      id: newId("bill"),
      tenantId,
      stationId: station.id,
      connectorId: input.connector_id,
      tariffId: input.tariff_id,
      tariffVersion: version.version,
      source: input.source,
      pricingGroup: input.pricing_group ?? null,
      merchantValidation: input.merchant_validation ?? null,
      billingVersion: isComplex(snapshot) ? "elements-v1" : "energy-v1",
      holdMinor,
      chargingToken: newChargingToken(),
      ...(external ? { settlementOwner: "external", sessionId: external.sessionId } : {}),
      createdBy: actorId,
    },
    include: billInclude,
  });
  return presentBill(bill);
}
