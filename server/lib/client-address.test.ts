import { describe, expect, it } from "vitest";
import { clientAddress } from "./client-address";

const from = (xff?: string) =>
  clientAddress(new Request("http://x/", { headers: xff ? { "x-forwarded-for": xff } : {} }));

describe("clientAddress", () => {
  it("takes the entry the nearest hop wrote, not what the client claimed before it", () => {
    expect(from("203.0.113.9")).toBe("203.0.113.9");
    // A client sent "1.1.1.1"; the proxy appended the address it really saw.
    expect(from("1.1.1.1, 198.51.100.7")).toBe("198.51.100.7");
    expect(from(" 1.1.1.1 ,198.51.100.7 , ")).toBe("198.51.100.7");
  });

  it("is 'unknown' without the header", () => {
    expect(from()).toBe("unknown");
    expect(from(" , ")).toBe("unknown");
  });
});
