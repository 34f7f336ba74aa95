import type { OcppCall } from "../operations/kinds/kind";

/** What a charger reported at boot, and how many EVSEs its station has: all an adapter needs. */
export type DisplayCharger = {
  protocol: string | null;
  vendor: string | null;
  model: string | null;
  evseCount: number;
};

/** One screen's push: the QR's URL, the PNG a 2.0.1 screen loads, and the price text if any. */
export type DisplayContent = {
  evseNumber: number;
  url: string;
  imageUrl: string;
  priceText: string | null;
};

/**
 * A way to drive a charger's screen (server/displays/README.md). `clear` is what the station's
 * `display.clear` says: whether deleting a display clears the screen (`clearCall` is sent), or
 * the last QR stays (`kept`: until the charger reboots, or until another QR overwrites it).
 */
export type DisplayAdapter = {
  name: string;
  matches(charger: DisplayCharger): boolean;
  push(content: DisplayContent, protocol: string): OcppCall;
  clear: boolean;
  clearCall?(evseNumber: number): OcppCall;
  /** when `clear` is false: how long the screen keeps the last QR after a delete */
  kept?: "until_reboot" | "until_overwritten";
};

/** The message a screen shows its QR in: one message id per EVSE, so a push replaces the last. */
function message(content: DisplayContent, protocol: string, evseBound: boolean) {
  const v21 = protocol === "ocpp2.1";
  return {
    id: content.evseNumber,
    priority: "AlwaysFront",
    ...(evseBound ? { display: { name: "Display", evse: { id: content.evseNumber } } } : {}),
    // 2.1 has a QR code format; a 2.0.1 screen loads the QR as an image from a URI.
    message: v21
      ? { format: "QRCODE", content: content.url }
      : { format: "URI", content: content.imageUrl },
    // The tariff's price: a second content in 2.1; 2.0.1 has one content slot, so it travels as
    // customData there, shown only by a charger that reads it.
    ...(content.priceText === null
      ? {}
      : v21
        ? { messageExtra: [{ format: "UTF8", content: content.priceText.slice(0, 1024) }] }
        : { customData: { vendorId: PRICE_VENDOR_ID, priceText: content.priceText } }),
  };
}

export const PRICE_VENDOR_ID = "chargecloud.display";

const setDisplayMessage =
  (evseBound: boolean) =>
  (content: DisplayContent, protocol: string): OcppCall => ({
    action: "SetDisplayMessage",
    payload: { message: message(content, protocol, evseBound) },
  });

const clearDisplayMessage = (evseNumber: number): OcppCall => ({
  action: "ClearDisplayMessage",
  payload: { id: evseNumber },
});

const is2x = (c: DisplayCharger) => c.protocol === "ocpp2.0.1" || c.protocol === "ocpp2.1";
const vendorIs = (names: readonly string[]) => (c: DisplayCharger) =>
  is2x(c) && names.some((n) => n.toLowerCase() === (c.vendor ?? "").trim().toLowerCase());

/**
 * Vendor names per vendor behaviour: the spec names no vendor, so these are the `vendorName`s
 * (2.x BootNotification) the two entries below serve; add a vendor's name to its behaviour's list.
 */
export const VENDORS_KEEPING_QR_UNTIL_REBOOT = ["ScreenKeep Reboot"] as const;
export const VENDORS_KEEPING_QR_UNTIL_OVERWRITTEN = ["ScreenKeep Overwrite"] as const;

/** The registry, in the order a charger is matched: vendor entries first. */
export const DISPLAY_ADAPTERS: readonly DisplayAdapter[] = [
  {
    // A screen per EVSE, addressed by the message's display component; ignores ClearDisplayMessage
    // and keeps the last QR until it reboots.
    name: "vendor_qr_until_reboot",
    matches: vendorIs(VENDORS_KEEPING_QR_UNTIL_REBOOT),
    push: setDisplayMessage(true),
    clear: false,
    kept: "until_reboot",
  },
  {
    // The same, but the last QR survives reboots: only another QR replaces it.
    name: "vendor_qr_until_overwritten",
    matches: vendorIs(VENDORS_KEEPING_QR_UNTIL_OVERWRITTEN),
    push: setDisplayMessage(true),
    clear: false,
    kept: "until_overwritten",
  },
  {
    name: "ocpp2.1_qrcode",
    matches: (c) => c.protocol === "ocpp2.1" && c.evseCount === 1,
    push: setDisplayMessage(false),
    clear: true,
    clearCall: clearDisplayMessage,
  },
  {
    name: "ocpp2.0.1_uri",
    matches: (c) => c.protocol === "ocpp2.0.1" && c.evseCount === 1,
    push: setDisplayMessage(false),
    clear: true,
    clearCall: clearDisplayMessage,
  },
];

/** Why no adapter drives a charger's screen (the station's `display.reason`). */
export type UnsupportedReason =
  "not_booted" | "ocpp1.6_has_no_display_messages" | "multi_evse_without_vendor_adapter";

/**
 * The adapter for a charger, or why there is none. `not_booted` is not `unsupported`: the charger
 * has not said what it is yet, so its displays wait (`pending`).
 */
export function resolveDisplayAdapter(
  charger: DisplayCharger,
): { adapter: DisplayAdapter; reason: null } | { adapter: null; reason: UnsupportedReason } {
  if (!charger.protocol) return { adapter: null, reason: "not_booted" };
  const adapter = DISPLAY_ADAPTERS.find((a) => a.matches(charger));
  if (adapter) return { adapter, reason: null };
  if (charger.protocol === "ocpp1.6")
    return { adapter: null, reason: "ocpp1.6_has_no_display_messages" };
  return { adapter: null, reason: "multi_evse_without_vendor_adapter" };
}
