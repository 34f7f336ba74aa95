import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineRoute } from "./route";
import { createRouter } from "./router";

describe("deprecation headers", () => {
  it("a deprecated route answers with Deprecation (RFC 9745), Sunset (RFC 8594) and Link", async () => {
    const handle = createRouter([
      defineRoute({
        method: "GET",
        path: "/v1/old-thing",
        operationId: "oldThing",
        summary: "old",
        tag: "test",
        auth: "public",
        status: 200,
        response: z.object({}),
        deprecated: {
          announcedAt: new Date("2026-10-17T00:00:00Z"),
          sunset: new Date("2027-04-17T00:00:00Z"),
          link: "https://example.com/changelog#old-thing",
        },
        handler: () => ({ body: {} }),
      }),
      defineRoute({
        method: "GET",
        path: "/v1/new-thing",
        operationId: "newThing",
        summary: "new",
        tag: "test",
        auth: "public",
        status: 200,
        response: z.object({}),
        handler: () => ({ body: {} }),
      }),
    ]);
    const old = await handle(new Request("http://localhost/v1/old-thing"));
    expect(old.headers.get("deprecation")).toBe(`@${Date.UTC(2026, 9, 17) / 1000}`);
    expect(old.headers.get("sunset")).toBe("Sat, 17 Apr 2027 00:00:00 GMT");
    expect(old.headers.get("link")).toBe(
      '<https://example.com/changelog#old-thing>; rel="deprecation"; type="text/html"',
    );
    const current = await handle(new Request("http://localhost/v1/new-thing"));
    expect(current.headers.get("deprecation")).toBeNull();
    expect(current.headers.get("service-version")).toBe("2026-10-15");
  });
});
