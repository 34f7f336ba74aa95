import crypto from "node:crypto";

/**
 * The Stripe fake's state: accounts and the objects that live in them, shaped as Stripe's API
 * answers them (only the fields the product reads, plus identity fields). Test code; see
 * stripe-fake.ts for what the fake covers and what it does not.
 */

export type Params = Record<string, unknown>;
export type Answer = {
  status: number;
  body: unknown;
  /** false for refusals before the endpoint began executing: Stripe stores no idempotent result */
  store: boolean;
};

/** `platform` for the platform's own objects, else the connected account id */
export type Scope = string;

export type FakeAccount = {
  id: string;
  object: "account";
  type: string;
  country: string;
  email: string | null;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  requirements: {
    currently_due: string[];
    eventually_due: string[];
    past_due: string[];
    disabled_reason: string | null;
  };
  metadata: Record<string, string>;
  created: number;
};

export type FakeSession = {
  id: string;
  object: "checkout.session";
  mode: "payment";
  status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid";
  amount_subtotal: number;
  amount_total: number;
  currency: string;
  payment_intent: string | null;
  payment_method_types: string[];
  url: string | null;
  success_url: string | null;
  cancel_url: string | null;
  metadata: Record<string, string>;
  expires_at: number;
  created: number;
  livemode: false;
};

export type LastPaymentError = {
  type: "card_error";
  code: string;
  decline_code: string;
  message: string;
  charge: string;
};

export type FakeIntent = {
  id: string;
  object: "payment_intent";
  amount: number;
  amount_capturable: number;
  amount_received: number;
  currency: string;
  status: string;
  capture_method: string;
  cancellation_reason: string | null;
  canceled_at: number | null;
  description: string | null;
  metadata: Record<string, string>;
  last_payment_error: LastPaymentError | null;
  latest_charge: string | null;
  created: number;
  livemode: false;
};

export type FakeCharge = {
  id: string;
  object: "charge";
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  captured: boolean;
  refunded: boolean;
  paid: boolean;
  status: "succeeded" | "pending" | "failed";
  currency: string;
  payment_intent: string;
  /**
   * As Stripe shows a card charge: `capture_before` (Unix seconds) is the authorization's own
   * deadline while it is uncaptured; the fake sets it when a manual-capture charge is authorized.
   */
  payment_method_details: {
    type: "card";
    card: { brand: string; last4: string; capture_before: number | null };
  };
  created: number;
  livemode: false;
};

export type FakeRefund = {
  id: string;
  object: "refund";
  amount: number;
  charge: string;
  payment_intent: string;
  currency: string;
  status: "succeeded" | "failed";
  /** why a failed refund failed (`expired_or_canceled_card`, `lost_or_stolen_card`, `unknown`) */
  failure_reason: string | null;
  reason: string | null;
  created: number;
};

export type FakeObject = FakeSession | FakeIntent | FakeCharge | FakeRefund;

export const now = () => Math.floor(Date.now() / 1000);

export function fakeId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
}

export function stripeError(
  status: number,
  error: { type: string; message: string; code?: string; param?: string; decline_code?: string },
  store = true,
): Answer {
  return { status, body: { error }, store };
}

export const missing = (param: string) =>
  stripeError(
    400,
    {
      type: "invalid_request_error",
      code: "parameter_missing",
      param,
      message: `Missing required param: ${param}.`,
    },
    false,
  );

export const invalidParam = (param: string, message: string) =>
  stripeError(
    400,
    { type: "invalid_request_error", code: "parameter_invalid", param, message },
    false,
  );

export const noSuch = (kind: string, id: string) =>
  stripeError(404, {
    type: "invalid_request_error",
    code: "resource_missing",
    message: `No such ${kind}: '${id}'`,
  });

/** A positive whole number of minor units from a form value, or null. */
export function minorUnits(value: unknown): number | null {
  if (typeof value !== "string" || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object") return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
}

/**
 * Form bodies and query strings as the SDK writes them (`a[b][0][c]=v`, `expand[0]=x`): nested
 * objects, with numeric segments read as array positions.
 */
export function parseForm(text: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/\[|\]\[|\]/).filter((part, i) => part !== "" || i === 0);
    if (path.some((part) => ["__proto__", "constructor", "prototype"].includes(part))) continue;
    let node: Record<string, unknown> = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) {
        node[part] = value;
        return;
      }
      const next = node[part];
      if (next && typeof next === "object") {
        node = next as Record<string, unknown>;
      } else {
        const created: Record<string, unknown> = {};
        node[part] = created;
        node = created;
      }
    });
  }
  return arraysOf(root) as Params;
}

function arraysOf(value: unknown): unknown {
  if (!value || typeof value !== "object") return value;
  const entries = Object.entries(value);
  if (entries.length > 0 && entries.every(([key]) => /^\d+$/.test(key))) {
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => arraysOf(v));
  }
  return Object.fromEntries(entries.map(([key, v]) => [key, arraysOf(v)]));
}

/** The same parameters in any key order give the same fingerprint (Stripe compares parameters). */
export function fingerprint(method: string, path: string, params: Params): string {
  const canonical = (value: unknown): unknown =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, v]) => [k, canonical(v)]),
        )
      : Array.isArray(value)
        ? value.map(canonical)
        : value;
  return JSON.stringify([method, path, canonical(params)]);
}

export const DECLINE_MESSAGES: Record<string, string> = {
  generic_decline: "Your card was declined.",
  insufficient_funds: "Your card has insufficient funds.",
  lost_card: "Your card was declined.",
  stolen_card: "Your card was declined.",
  expired_card: "Your card has expired.",
  incorrect_cvc: "Your card's security code is incorrect.",
  processing_error: "An error occurred while processing your card. Try again in a little bit.",
};

/** Stripe's `code` for a decline reason: issuer declines are `card_declined`. */
export function declineCodeOf(reason: string): string {
  return ["expired_card", "incorrect_cvc", "processing_error"].includes(reason)
    ? reason
    : "card_declined";
}
