import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withV1 } from "./web-server";
import { v1Handler } from "./web-v1";

/**
 * The web process's front once Next.js is ready: plain /v1 requests go straight to the router
 * (scripts/web-v1.ts), written as Next.js writes a route's answer; what Next.js acts on itself goes
 * to Next.js. Here Next.js's handler is a recorder (the real one answers in e2e/v1-paths.spec.ts,
 * which compares both paths byte for byte on the production build).
 */
let server: http.Server;
let port = 0;
const toNext: string[] = [];

beforeAll(async () => {
  const front = withV1(
    (req, res) => {
      toNext.push(`${req.method} ${req.url}`);
      res.writeHead(299).end("next");
    },
    await v1Handler(),
  );
  server = http.createServer(front);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

function get(target: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, path: target, method, headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        },
      );
      req.on("error", reject);
      req.end();
    },
  );
}

describe("the web front once Next.js is ready", () => {
  it("answers plain /v1 requests from the router, never through Next.js", async () => {
    toNext.length = 0;
    const discovery = await get("/v1?x=1");
    expect(discovery.status).toBe(200);
    expect(JSON.parse(discovery.body.toString()).versions.current).toBeTruthy();
    const unknown = await get("/v1/no/such/route");
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body.toString()).error.code).toBe("route_not_found");
    const options = await get("/v1/health", {}, "OPTIONS");
    expect(options.status).toBe(204);
    expect(toNext).toEqual([]);
  });

  it("writes answers as Next.js does: its Vary, chunked, compressed when the client accepts it", async () => {
    const plain = await get("/v1");
    expect(plain.headers.vary).toBe(
      "rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch, Accept-Encoding",
    );
    expect(plain.headers["transfer-encoding"]).toBe("chunked");
    expect(plain.headers["content-length"]).toBeUndefined();
    const gzipped = await get("/v1", { "accept-encoding": "gzip" });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gzipped.body).toString()).toBe(plain.body.toString());
    const head = await get("/v1", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it("hands Next.js what it acts on itself, and everything that is not /v1", async () => {
    toNext.length = 0;
    const targets = [
      "/v1/health/",
      "/v1/tenants/%31/stations",
      "/v1/tenants/../health",
      "/v1?_rsc=abc",
      "/v1x",
      "/console",
      "/",
    ];
    for (const target of targets) expect((await get(target)).status).toBe(299);
    expect((await get("/v1", { rsc: "1" })).status).toBe(299);
    expect((await get("/v1", { "next-router-prefetch": "1" })).status).toBe(299);
    expect(toNext).toEqual([...targets.map((t) => `GET ${t}`), "GET /v1", "GET /v1"]);
  });
});
