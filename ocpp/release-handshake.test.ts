import { describe, expect, it } from "vitest";
import { releaseHandshake } from "./release-handshake";

describe("releaseHandshake", () => {
  it("drops the request, headers, query and password, and leaves what the gateway reads", () => {
    const handshake = {
      identity: "CP-1",
      endpoint: "/ocpp",
      protocols: new Set(["ocpp1.6"]),
      remoteAddress: "127.0.0.1",
      request: { url: "/ocpp/CP-1" },
      headers: { authorization: "Basic Q1AtMTpzZWNyZXQ=" },
      query: new URLSearchParams("a=1"),
      password: Buffer.from("secret"),
    };
    releaseHandshake(handshake);
    expect(handshake).toMatchObject({
      identity: "CP-1",
      endpoint: "/ocpp",
      remoteAddress: "127.0.0.1",
      request: undefined,
      headers: undefined,
      query: undefined,
      password: undefined,
    });
    expect(() => releaseHandshake(undefined)).not.toThrow();
  });
});
