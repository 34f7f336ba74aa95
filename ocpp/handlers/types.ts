import type { DbTx } from "../../server/db";
import type { StationCall } from "../../server/charger-reports/call-batch";
import type { BootReport } from "../../server/charger-reports/station-booted";
import type { StatusReport } from "../../server/charger-reports/status-reported";
import type { ChargerContext } from "../../server/charging/connections";

/** A charger-initiated call: runs in one transaction with the dedup record of its message id. */
export type ChargerHandler<Payload> = (
  tx: DbTx,
  charger: ChargerContext,
  payload: Payload,
) => Promise<Record<string, unknown>>;

/** One handler per action, each typed by its action's request payload. */
export type HandlerTable<Payloads> = {
  [Action in keyof Payloads & string]: ChargerHandler<Payloads[Action]>;
};

/** What the gateway calls with a payload it has not typed itself. */
export type ValidatedHandler = ChargerHandler<unknown>;

/**
 * The table as the gateway looks actions up. The one place a payload becomes its type: ocpp-rpc
 * in strict mode has validated it against the action's official schema before a handler runs, and
 * each payload type declares only fields that schema defines, with its required ones required.
 */
export function byAction<Payloads>(
  table: HandlerTable<Payloads>,
): ReadonlyMap<string, ValidatedHandler> {
  return new Map(
    (Object.keys(table) as (keyof Payloads & string)[]).map((action) => {
      const handler: ChargerHandler<Payloads[typeof action]> = table[action];
      const validated: ValidatedHandler = (tx, charger, payload) =>
        handler(tx, charger, payload as Payloads[typeof action]);
      return [action, validated];
    }),
  );
}

/** A charger timestamp, or the receipt time when it is missing or unreadable. */
export function chargerTime(value: string | undefined): Date {
  const date = value === undefined ? null : new Date(value);
  return date && !Number.isNaN(date.getTime()) ? date : new Date();
}

/** Replies for notifications the core acknowledges without recording. */
export const acknowledge: ChargerHandler<unknown> = () => Promise.resolve({});
export const acceptedReply: ChargerHandler<unknown> = () => Promise.resolve({ status: "Accepted" });
export const unknownVendor: ChargerHandler<unknown> = () =>
  Promise.resolve({ status: "UnknownVendorId" });

/** The heartbeat interval chargers are told at boot (both protocol families). */
export const HEARTBEAT_INTERVAL_SECONDS = 300;

/** The answer to every BootNotification (1.6 and 2.x): accepted, with the heartbeat interval. */
export const bootAccepted = (now: Date) => ({
  status: "Accepted",
  currentTime: now.toISOString(),
  interval: HEARTBEAT_INTERVAL_SECONDS,
});

/**
 * The actions the gateway may record in batches (`recordCallBatch`), BootNotification and
 * StatusNotification, read by the protocol family's own readers (the ones its handlers use), as
 * the gateway looks them up (payloads validated, as for `byAction`).
 */
export function reportsInBatches<Boot, Status>(
  bootReport: (payload: Boot) => BootReport,
  statusReport: (payload: Status) => StatusReport,
): ReadonlyMap<string, (payload: unknown) => StationCall> {
  const boot = (payload: unknown): StationCall => {
    const now = new Date();
    return {
      kind: "boot",
      report: bootReport(payload as Boot),
      at: now,
      response: bootAccepted(now),
    };
  };
  const status = (payload: unknown): StationCall => ({
    kind: "status",
    report: statusReport(payload as Status),
    response: {},
  });
  return new Map([
    ["BootNotification", boot],
    ["StatusNotification", status],
  ]);
}
