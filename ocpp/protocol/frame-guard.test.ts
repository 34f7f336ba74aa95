import { describe, expect, it } from "vitest";
import {
  MAX_FRAME_DEPTH,
  depthExceeds,
  inProtocolWords,
  inspectFrame,
  wireErrorCode,
} from "./frame-guard";

describe("wireErrorCode", () => {
  it("names every code in OCPP-J 1.6's words on 1.6 (errata 5.1 and 5.2 keep its spellings)", () => {
    const on16 = (code: string) => wireErrorCode("ocpp1.6", code);
    expect(on16("FormatViolation")).toBe("FormationViolation");
    expect(on16("RpcFrameworkError")).toBe("FormationViolation");
    expect(on16("MessageTypeNotSupported")).toBe("FormationViolation");
    expect(on16("OccurrenceConstraintViolation")).toBe("OccurenceConstraintViolation");
    for (const code of [
      "NotImplemented",
      "NotSupported",
      "InternalError",
      "ProtocolError",
      "SecurityError",
      "FormationViolation",
      "PropertyConstraintViolation",
      "OccurenceConstraintViolation",
      "TypeConstraintViolation",
      "GenericError",
    ])
      expect(on16(code)).toBe(code);
    expect(on16("SomethingElse")).toBe("GenericError");
  });

  it("names every code in OCPP-J 2.x's words on 2.0.1 and 2.1", () => {
    for (const protocol of ["ocpp2.0.1", "ocpp2.1"]) {
      expect(wireErrorCode(protocol, "FormationViolation")).toBe("FormatViolation");
      expect(wireErrorCode(protocol, "OccurenceConstraintViolation")).toBe(
        "OccurrenceConstraintViolation",
      );
      expect(wireErrorCode(protocol, "RpcFrameworkError")).toBe("RpcFrameworkError");
      expect(wireErrorCode(protocol, "MessageTypeNotSupported")).toBe("MessageTypeNotSupported");
      expect(wireErrorCode(protocol, "SomethingElse")).toBe("GenericError");
    }
  });

  it("rewrites only CALLERROR frames", () => {
    const result = JSON.stringify([3, "a", { status: "FormatViolation" }]);
    expect(inProtocolWords("ocpp1.6", result)).toBe(result);
    expect(
      JSON.parse(inProtocolWords("ocpp1.6", '[4,"a","OccurrenceConstraintViolation","x",{}]')),
    ).toEqual([4, "a", "OccurenceConstraintViolation", "x", {}]);
  });
});

describe("inspectFrame", () => {
  const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

  it("passes frames up to the depth limit and refuses deeper calls; deeper responses are dropped", () => {
    // the frame array is one level, the payload the rest
    expect(inspectFrame(`[2,"a","Heartbeat",${nested(MAX_FRAME_DEPTH - 1)}]`)).toEqual({
      kind: "pass",
    });
    expect(inspectFrame(`[2,"a","Heartbeat",${nested(MAX_FRAME_DEPTH)}]`)).toMatchObject({
      kind: "refuse",
      messageId: "a",
      code: "FormatViolation",
    });
    expect(inspectFrame(`[3,"a",${nested(MAX_FRAME_DEPTH)}]`)).toEqual({ kind: "drop" });
  });

  it("checks depth without recursion (100,000 levels)", () => {
    expect(depthExceeds(JSON.parse(nested(100_000)), MAX_FRAME_DEPTH)).toBe(true);
    expect(depthExceeds({ a: [{ b: [1, "x"] }] }, 4)).toBe(false);
    expect(depthExceeds({ a: [{ b: [[]] }] }, 4)).toBe(true);
  });

  it("refuses message IDs over 36 characters, unreadable IDs and actions", () => {
    expect(inspectFrame(JSON.stringify([2, "i".repeat(36), "Heartbeat", {}]))).toEqual({
      kind: "pass",
    });
    expect(inspectFrame(JSON.stringify([2, "i".repeat(37), "Heartbeat", {}]))).toMatchObject({
      kind: "refuse",
      messageId: "i".repeat(37),
      code: "RpcFrameworkError",
    });
    expect(inspectFrame(JSON.stringify([2, 5, "Heartbeat", {}]))).toMatchObject({
      messageId: "-1",
      code: "RpcFrameworkError",
    });
    expect(inspectFrame(JSON.stringify([2, "a", 5, {}]))).toMatchObject({
      messageId: "a",
      code: "RpcFrameworkError",
    });
    expect(inspectFrame("{}")).toMatchObject({ messageId: "-1", code: "RpcFrameworkError" });
    expect(inspectFrame("")).toEqual({ kind: "pass" });
  });
});
