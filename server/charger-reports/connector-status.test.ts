import { describe, expect, it } from "vitest";
import {
  CONNECTOR_STATUSES,
  type OpenFault,
  type StatusNotification,
  faultTransition,
  isFault,
  isWholeStation,
  normalizeStatus,
} from "./connector-status";

describe("connector status mapping (spec section 3)", () => {
  it("maps every OCPP 1.6 status one to one", () => {
    for (const status of CONNECTOR_STATUSES) {
      expect(normalizeStatus("ocpp1.6", status, false)).toBe(status);
      expect(normalizeStatus("ocpp1.6", status, true)).toBe(status);
    }
  });

  it.each(["ocpp2.0.1", "ocpp2.1"])(
    "%s: Occupied is Charging with an active transaction, else Preparing",
    (protocol) => {
      expect(normalizeStatus(protocol, "Occupied", true)).toBe("Charging");
      expect(normalizeStatus(protocol, "Occupied", false)).toBe("Preparing");
    },
  );

  it.each(["ocpp2.0.1", "ocpp2.1"])(
    "%s: Available, Reserved, Unavailable and Faulted keep their name, whatever the transaction",
    (protocol) => {
      for (const status of ["Available", "Reserved", "Unavailable", "Faulted"]) {
        expect(normalizeStatus(protocol, status, false)).toBe(status);
        expect(normalizeStatus(protocol, status, true)).toBe(status);
      }
    },
  );

  it("reads any other value as Unavailable", () => {
    // 1.6 names that 2.x does not have, and names neither version has
    expect(normalizeStatus("ocpp2.0.1", "Charging", true)).toBe("Unavailable");
    expect(normalizeStatus("ocpp2.1", "SuspendedEV", false)).toBe("Unavailable");
    expect(normalizeStatus("ocpp2.1", "occupied", true)).toBe("Unavailable"); // case matters
    expect(normalizeStatus("ocpp1.6", "Occupied", true)).toBe("Unavailable"); // 2.x name on 1.6
    expect(normalizeStatus("ocpp1.6", "Exploded", false)).toBe("Unavailable");
    expect(normalizeStatus("ocpp1.6", "", false)).toBe("Unavailable");
  });
});

/** A 1.6 StatusNotification on connector 1 (resource ID 11, EVSE 1). */
const v16 = (
  status: string,
  errorCode: string,
  more: Partial<StatusNotification> = {},
): StatusNotification => ({
  protocol: "ocpp1.6",
  connectorNumber: 1,
  evseNumber: 1,
  connectorId: 11,
  ocppStatus: status,
  errorCode,
  ...more,
});

/** A 2.x StatusNotification on EVSE 2 (connector resource ID 21). */
const v2 = (status: string, more: Partial<StatusNotification> = {}): StatusNotification => ({
  protocol: "ocpp2.0.1",
  evseNumber: 2,
  connectorId: 21,
  ocppStatus: status,
  ...more,
});

const fault = (errorCode: string | null): OpenFault => ({ errorCode });

describe("what counts as a fault", () => {
  it("1.6: an errorCode other than NoError, or status Faulted", () => {
    expect(isFault(v16("Available", "NoError"))).toBe(false);
    expect(isFault(v16("Charging", "NoError"))).toBe(false);
    expect(isFault(v16("Available", "HighTemperature"))).toBe(true); // error without Faulted
    expect(isFault(v16("Faulted", "NoError"))).toBe(true);
    expect(isFault(v16("Faulted", "GroundFailure"))).toBe(true);
  });

  it("2.x: status Faulted only; an error code is never read", () => {
    expect(isFault(v2("Faulted"))).toBe(true);
    expect(isFault(v2("Unavailable"))).toBe(false);
    expect(isFault(v2("Available", { errorCode: "GroundFailure" }))).toBe(false);
  });

  it("connector 0 (1.6) and EVSE 0 (2.x) are the whole station", () => {
    expect(isWholeStation({ protocol: "ocpp1.6", connectorNumber: 0 })).toBe(true);
    expect(isWholeStation({ protocol: "ocpp1.6", connectorNumber: 1, evseNumber: 0 })).toBe(false);
    expect(isWholeStation({ protocol: "ocpp2.1", evseNumber: 0 })).toBe(true);
    expect(isWholeStation({ protocol: "ocpp2.1", evseNumber: 1, connectorNumber: 0 })).toBe(false);
  });
});

describe("the fault table (spec section 3)", () => {
  it("(none) + a clean notification: nothing", () => {
    expect(faultTransition(null, v16("Available", "NoError"))).toEqual({
      clear: false,
      open: null,
    });
    expect(faultTransition(null, v2("Occupied"))).toEqual({ clear: false, open: null });
  });

  it("(none) + 1.6 error code: opens a fault with the charger's details", () => {
    const n = v16("Faulted", "GroundFailure", {
      info: "RCD tripped",
      vendorId: "com.acme",
      vendorErrorCode: "E42",
    });
    expect(faultTransition(null, n)).toEqual({
      clear: false,
      open: {
        connectorId: 11,
        evseNumber: 1,
        errorCode: "GroundFailure",
        info: "RCD tripped",
        vendorId: "com.acme",
        vendorErrorCode: "E42",
        ocppStatus: "Faulted",
      },
    });
  });

  it("(none) + 1.6 error code with a non-Faulted status: opens", () => {
    expect(faultTransition(null, v16("Charging", "HighTemperature")).open).toMatchObject({
      errorCode: "HighTemperature",
      ocppStatus: "Charging",
    });
  });

  it("(none) + 1.6 Faulted with NoError: opens with a null error code", () => {
    expect(faultTransition(null, v16("Faulted", "NoError")).open).toMatchObject({
      errorCode: null,
      ocppStatus: "Faulted",
    });
  });

  it("(none) + 2.x Faulted: opens with a null error code (2.x has none)", () => {
    expect(faultTransition(null, v2("Faulted", { errorCode: "ignored" }))).toEqual({
      clear: false,
      open: {
        connectorId: 21,
        evseNumber: 2,
        errorCode: null,
        info: null,
        vendorId: null,
        vendorErrorCode: null,
        ocppStatus: "Faulted",
      },
    });
  });

  it("whole-station faults (1.6 connector 0, 2.x EVSE 0) have no connector", () => {
    const station16 = v16("Faulted", "PowerMeterFailure", {
      connectorNumber: 0,
      evseNumber: null,
      connectorId: null,
    });
    expect(faultTransition(null, station16).open).toMatchObject({
      connectorId: null,
      evseNumber: null,
      errorCode: "PowerMeterFailure",
    });
    // even if the caller passed a connector, the station-wide notification has none
    const station2 = v2("Faulted", { evseNumber: 0, connectorId: 99 });
    expect(faultTransition(null, station2).open).toMatchObject({
      connectorId: null,
      evseNumber: null,
      errorCode: null,
    });
  });

  it("open + no error reported: cleared", () => {
    expect(faultTransition(fault("GroundFailure"), v16("Available", "NoError"))).toEqual({
      clear: true,
      open: null,
    });
    expect(faultTransition(fault(null), v2("Available"))).toEqual({ clear: true, open: null });
    // a 2.x connector going Unavailable is not a fault either
    expect(faultTransition(fault(null), v2("Unavailable"))).toEqual({ clear: true, open: null });
  });

  it("open + the same error code again: it is the same fault", () => {
    expect(faultTransition(fault("GroundFailure"), v16("Faulted", "GroundFailure"))).toEqual({
      clear: false,
      open: null,
    });
    // same code, different status or info: still the same fault
    expect(
      faultTransition(fault("GroundFailure"), v16("Unavailable", "GroundFailure", { info: "x" })),
    ).toEqual({ clear: false, open: null });
    expect(faultTransition(fault(null), v16("Faulted", "NoError"))).toEqual({
      clear: false,
      open: null,
    });
    // 2.x Faulted repeated
    expect(faultTransition(fault(null), v2("Faulted"))).toEqual({ clear: false, open: null });
  });

  it("open + a different error code: cleared and a new fault opens", () => {
    const move = faultTransition(fault("GroundFailure"), v16("Faulted", "OverVoltage"));
    expect(move.clear).toBe(true);
    expect(move.open).toMatchObject({ errorCode: "OverVoltage", connectorId: 11 });
    // from "Faulted with NoError" (code null) to a real code, and back
    expect(faultTransition(fault(null), v16("Faulted", "OverCurrentFailure"))).toMatchObject({
      clear: true,
      open: { errorCode: "OverCurrentFailure" },
    });
    expect(faultTransition(fault("OverCurrentFailure"), v16("Faulted", "NoError"))).toMatchObject({
      clear: true,
      open: { errorCode: null },
    });
  });

  it("a fault opened over 1.6 and a 2.x charger reconnecting Faulted: compared by code", () => {
    // the station was upgraded: the old 1.6 code differs from 2.x's null, so it is replaced
    expect(faultTransition(fault("GroundFailure"), v2("Faulted"))).toMatchObject({
      clear: true,
      open: { errorCode: null },
    });
  });
});
