import { describe, expect, it } from "vitest";
import { faultTransition, normalizeStatus } from "./connector-status";

describe("connector status mapping (spec section 3)", () => {
  it("maps OCPP 1.6 one to one", () => {
    for (const s of [
      "Available",
      "Preparing",
      "Charging",
      "SuspendedEV",
      "SuspendedEVSE",
      "Finishing",
      "Reserved",
      "Unavailable",
      "Faulted",
    ]) {
      expect(normalizeStatus("ocpp1.6", s, false)).toBe(s);
    }
  });

  it("maps OCPP 2.x Occupied by whether a transaction is active, and anything else unknown to Unavailable", () => {
    expect(normalizeStatus("ocpp2.0.1", "Occupied", true)).toBe("Charging");
    expect(normalizeStatus("ocpp2.1", "Occupied", false)).toBe("Preparing");
    expect(normalizeStatus("ocpp2.0.1", "Available", false)).toBe("Available");
    expect(normalizeStatus("ocpp2.0.1", "Faulted", false)).toBe("Faulted");
    expect(normalizeStatus("ocpp2.0.1", "Charging", false)).toBe("Unavailable");
    expect(normalizeStatus("ocpp1.6", "Exploded", false)).toBe("Unavailable");
  });
});

describe("the fault table", () => {
  it("opens on an error code or Faulted, clears on a clean report, and replaces on another code", () => {
    expect(faultTransition(null, { errorCode: "NoError", ocppStatus: "Available" })).toEqual({
      clear: false,
      open: false,
    });
    expect(faultTransition(null, { errorCode: "GroundFailure", ocppStatus: "Available" })).toEqual({
      clear: false,
      open: true,
    });
    expect(faultTransition(null, { errorCode: null, ocppStatus: "Faulted" })).toEqual({
      clear: false,
      open: true,
    });
    expect(
      faultTransition(
        { errorCode: "GroundFailure" },
        { errorCode: "GroundFailure", ocppStatus: "Faulted" },
      ),
    ).toEqual({ clear: false, open: false });
    expect(
      faultTransition(
        { errorCode: "GroundFailure" },
        { errorCode: "NoError", ocppStatus: "Available" },
      ),
    ).toEqual({ clear: true, open: false });
    expect(
      faultTransition(
        { errorCode: "GroundFailure" },
        { errorCode: "OverVoltage", ocppStatus: "Faulted" },
      ),
    ).toEqual({ clear: true, open: true });
    expect(
      faultTransition({ errorCode: null }, { errorCode: null, ocppStatus: "Available" }),
    ).toEqual({ clear: true, open: false });
  });
});
