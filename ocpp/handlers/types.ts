import type { DbTx } from "../../server/db";
import type { ChargerContext } from "../../server/charging/connections";

/** A charger-initiated call: runs in one transaction with the dedup record of its message id. */
export type ChargerHandler = (
  tx: DbTx,
  charger: ChargerContext,
  params: any,
) => Promise<Record<string, unknown>>;

export const now = () => new Date();

/** A charger timestamp, or the receipt time when it is missing or unreadable. */
export function chargerTime(value: unknown): Date {
  const date = typeof value === "string" ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date : new Date();
}

/** Replies for notifications the core acknowledges without recording. */
export const acknowledge: ChargerHandler = () => Promise.resolve({});
export const acceptedReply: ChargerHandler = () => Promise.resolve({ status: "Accepted" });
export const unknownVendor: ChargerHandler = () => Promise.resolve({ status: "UnknownVendorId" });
