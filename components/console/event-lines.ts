/**
 * One readable sentence per event, from the event's own data: "connector 2 Faulted: GroundFailure"
 * (the page puts the station's name before it). Everything read from `data` is untrusted (a charger
 * or a client wrote it): it is returned as plain text for React to escape, never as markup.
 */

import { money } from "./money";

export type LoggedEvent = {
  sequence: number;
  type: string;
  resource_id: string | null;
  station_id?: number;
  created_at: string;
  data: Record<string, unknown>;
};

/** What a line links to besides its station. */
export type EventTarget =
  | { kind: "transaction"; id: number }
  | { kind: "bill"; id: string }
  | { kind: "payment"; id: string; billId: string }
  | { kind: "session"; id: string };

/** A station's connectors, to say a connector by its number rather than its id. */
export type ConnectorNumbers = Map<number, number>;

const rec = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | null =>
  typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null;
const int = (v: unknown): number | null =>
  typeof v === "number" && Number.isInteger(v) ? v : null;

function connector(data: Record<string, unknown>, numbers: ConnectorNumbers | undefined) {
  const id = int(data.connector_id);
  if (id === null) {
    const evse = int(data.evse_number);
    return evse ? `EVSE ${evse}` : "the station";
  }
  const n = numbers?.get(id);
  return n === undefined ? `connector #${id}` : `connector ${n}`;
}

/** The amount in the object's own currency, or null when the field is not an integer. */
const amount = (minor: unknown, currency: unknown) => {
  const n = int(minor);
  return n === null ? null : money(n, str(currency) ?? "USD");
};

const joined = (...parts: (string | null | false | undefined)[]) =>
  parts.filter((p): p is string => typeof p === "string" && p !== "").join(", ");

const PAYMENT_VERBS: Record<string, string> = {
  authorized: "authorized",
  failed: "failed",
  captured: "captured",
  released: "released",
  refunded: "refunded",
  expired: "expired",
  reconciliation_required: "needs reconciliation",
  refund_failed: "refund failed",
};

/** The sentence for an event (after its station's name) and what it links to. */
export function describeEvent(
  ev: LoggedEvent,
  numbers?: ConnectorNumbers,
): { text: string; target?: EventTarget } {
  const d = ev.data;
  const [family, action = ""] = ev.type.split(".", 2) as [string, string?];
  switch (ev.type) {
    case "station.connected":
      return { text: `connected${str(d.protocol) ? ` (${str(d.protocol)})` : ""}` };
    case "station.disconnected":
      return { text: "disconnected" };
    case "station.booted":
      return {
        text: `booted: ${joined(
          [str(d.vendor), str(d.model)].filter(Boolean).join(" ") || "unknown model",
          str(d.firmware_version) && `firmware ${str(d.firmware_version)}`,
          str(d.protocol),
        )}`,
      };
    case "connector.status_changed": {
      const status = str(d.ocpp_status) ?? str(d.status) ?? "unknown status";
      const error = str(d.error_code);
      const was = str(d.previous_status);
      return {
        text: `${connector(d, numbers)} ${status}${error && error !== "NoError" ? `: ${error}` : ""}${was ? ` (was ${was})` : ""}`,
      };
    }
    case "station.fault_opened":
    case "station.fault_cleared": {
      const what = joined(str(d.error_code), str(d.info), str(d.vendor_error_code));
      return {
        text: `${ev.type === "station.fault_opened" ? "fault on" : "fault cleared on"} ${connector(d, numbers)}${what ? `: ${what}` : ""}`,
      };
    }
    case "meter.sampled": {
      const tx = int(d.transaction_id);
      const values = joined(
        str(d.power_kw) && `${str(d.power_kw)} kW`,
        str(d.energy_kwh) && `${str(d.energy_kwh)} kWh`,
        str(d.soc_percent) && `state of charge ${str(d.soc_percent)}%`,
        str(d.current_a) && `${str(d.current_a)} A`,
        str(d.voltage_v) && `${str(d.voltage_v)} V`,
      );
      return {
        text: `${connector(d, numbers)} meter: ${values || "no values"}`,
        ...(tx !== null ? { target: { kind: "transaction", id: tx } } : {}),
      };
    }
    case "operation.completed": {
      const op = rec(d.operation);
      return {
        text: `${str(op.action) ?? str(d.scope) ?? "operation"} ${str(op.status) ?? "completed"}`,
      };
    }
    case "station.credentials_changed":
      return {
        text: `connection password changed${str(d.applied) ? ` (${str(d.applied)})` : ""}`,
      };
    case "station.configuration_changed": {
      const changes = Array.isArray(d.changes) ? d.changes.map(rec) : [];
      const list = changes
        .map((c) => {
          const key = [str(c.component), str(c.key)].filter(Boolean).join(".");
          return c.secret === true ? `${key} (secret)` : `${key} = ${str(c.value) ?? ""}`;
        })
        .join(", ");
      return {
        text: `configuration changed: ${list || "no keys"}${d.reboot_required === true ? ", reboot required" : ""}`,
      };
    }
    case "station.firmware_status_changed":
      return { text: `firmware: ${str(d.status) ?? "?"}${d.state ? ` (${str(d.state)})` : ""}` };
    case "station.diagnostics_status_changed":
      return { text: `diagnostics: ${str(d.status) ?? "?"}${d.state ? ` (${str(d.state)})` : ""}` };
    case "station.diagnostics_uploaded":
      return {
        text: `diagnostics file uploaded (${typeof d.size === "number" ? d.size : "?"} bytes)`,
      };
    case "display.delivery_changed": {
      const display = rec(d.display);
      const evse = int(display.evse_number);
      const state = str(rec(display.delivery).state);
      return { text: `screen of EVSE ${evse ?? "?"}${state ? `: ${state}` : " changed"}` };
    }
    case "webhook.test":
      return { text: `test event for webhook ${str(d.webhook_id) ?? ""}`.trim() };
    case "api_key.rate_limit_changed":
      return {
        text: `API key ${str(d.key_id) ?? "?"} limit ${str(d.previous) ?? "default"} → ${str(d.requests_per_minute) ?? "?"} requests a minute`,
      };
    case "charging_session.status_changed":
    case "sandbox_session.status_changed": {
      const id = str(d.session_id) ?? ev.resource_id ?? "";
      const sandbox = ev.type.startsWith("sandbox");
      return {
        text: `${sandbox ? "sandbox session" : "session"} ${id} ${str(d.previous_status) ?? "new"} → ${str(d.status) ?? "?"}`,
        ...(sandbox || !id ? {} : { target: { kind: "session", id } }),
      };
    }
  }
  if (family === "bill") {
    const bill = rec(d.bill);
    const id = str(bill.id) ?? ev.resource_id ?? "";
    const text =
      action === "finalized"
        ? `bill ${id} finalized: ${joined(
            int(bill.energy_wh) !== null && `${(int(bill.energy_wh)! / 1000).toFixed(3)} kWh`,
            amount(bill.total_minor, bill.currency),
          )}`
        : action === "charging_stopped"
          ? `bill ${id}: charging stopped${str(d.reason) ? ` (${str(d.reason)})` : ""}`
          : action === "cap_exceeded"
            ? `bill ${id} passed its hold`
            : `bill ${id} ${action.replaceAll("_", " ")}`;
    return { text, ...(id ? { target: { kind: "bill", id } } : {}) };
  }
  if (family === "payment") {
    const payment = rec(d.payment);
    const id = str(payment.id) ?? ev.resource_id ?? "";
    const billId = str(payment.bill_id);
    const sum =
      amount(payment.captured_minor, payment.currency) ??
      amount(payment.amount_minor, payment.currency);
    return {
      text: `payment ${id} ${PAYMENT_VERBS[action] ?? action.replaceAll("_", " ")}${sum ? `: ${sum}` : ""}`,
      ...(billId ? { target: { kind: "payment", id, billId } } : {}),
    };
  }
  return { text: ev.type };
}

/** Event types and their families (`payment.*`) for the type picker. */
export function typeSuggestions(types: readonly string[]): string[] {
  const families = [...new Set(types.map((t) => `${t.split(".")[0]}.*`))];
  return [...types, ...families];
}
