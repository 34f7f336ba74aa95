/**
 * `/v1` served by the web process's own Node HTTP server, straight to the API's router
 * (`handleV1`, server/http/routes), without Next.js's request handling. scripts/web-server.ts uses
 * it for every /v1 request, before and after the console is ready (with `WEB_V1_VIA_NEXT=1`, only
 * while the console is being built: /v1 then goes through Next.js's route handler as before).
 *
 * Why: Next.js's per-request machinery (its base server, the app route module, the request and
 * response adapters) was most of the web process's CPU for a /v1 request (bench/README.md,
 * `api-read.ts`). What /v1 has from Next.js otherwise, and how it is kept here, so the answers are
 * the same bytes (`e2e/v1-paths.spec.ts` compares both paths):
 *  - `proxy.ts` answers paths that are not percent-encoded UTF-8 before Next.js fails on them:
 *    the same answer (`undecodablePathResponse`) is given here;
 *  - `next start` puts the socket's address in `X-Forwarded-For` when it is absent (per-address
 *    limits read it): done here too;
 *  - Next.js writes a route's answer its own way (`sendResponse`: its compression, its `Vary`,
 *    chunked framing): `send` makes the same calls in the same order;
 *  - Next.js redirects a path ending in "/", and acts itself on a few headers and query parameters
 *    of its own (`RSC`, `Next-Router-*`, `_rsc`…): once Next.js is ready, such requests go to it
 *    (`plainV1`), as do paths holding "%" (proxy.ts, below) or dot segments;
 *  - instrumentation.ts warms the database connections up once Next.js is ready (before that,
 *    they open on first use); the pools are on `globalThis`, shared by both copies of the server
 *    modules, as are the metrics registry, the API request counter and the shutdown hooks;
 *  - person tokens are checked against the built-in provider's keys in the database (or an external
 *    provider's published keys), not through its /oidc routes.
 */
import type http from "node:http";
import { createRequire, registerHooks } from "node:module";
import { Readable } from "node:stream";
import { undecodablePathResponse } from "../server/http/raw-path";

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** Is this request target's path `/v1` or under it (`/v1/…`)? */
export function isV1(target: string | undefined): boolean {
  if (!target?.startsWith("/v1")) return false;
  const next = target.charCodeAt(3);
  // the end, "/" or "?"
  return Number.isNaN(next) || next === 47 || next === 63;
}

/**
 * Server modules import "server-only", which throws unless resolved with the react-server
 * condition. This process runs Next.js, so it cannot run under that condition as a whole (React's
 * server build would replace the one Next.js renders pages with): only "server-only" gets it.
 */
let hooked = false;
function allowServerOnly() {
  if (hooked) return;
  hooked = true;
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      specifier === "server-only"
        ? nextResolve(specifier, {
            ...context,
            conditions: [...context.conditions, "react-server"],
          })
        : nextResolve(specifier, context),
  });
}

/** The Fetch request the /v1 router takes, as Next.js would build it from a Node request. */
export function toRequest(req: http.IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  if (!headers.has("x-forwarded-for") && req.socket.remoteAddress)
    headers.set("x-forwarded-for", req.socket.remoteAddress);
  let url: URL;
  try {
    url = new URL(`http://${req.headers.host ?? "localhost"}${req.url}`);
  } catch {
    url = new URL(`http://localhost${req.url}`);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  });
}

/** Next.js's own response compression (`compress`, on by default; next.config.ts keeps it). */
const nodeRequire = createRequire(import.meta.url);
type Middleware = (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;
const compress = (nodeRequire("next/dist/compiled/compression") as () => Middleware)();
const { releaseCompressionStream } = nodeRequire(
  "next/dist/server/lib/release-compression-stream",
) as { releaseCompressionStream: (res: http.ServerResponse) => void };

/** What Next.js's app router sends on every answer of an app route (its client caches by them). */
const APP_VARY = "rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch";
/** Headers Next.js does not copy from a route's Response (it frames the body itself). */
const FRAMING = new Set(["content-length", "content-encoding", "transfer-encoding"]);
/** Headers Next.js appends again when the response already has them; others it keeps once. */
const REPEATABLE = new Set(["set-cookie", "www-authenticate", "proxy-authenticate", "vary"]);

/**
 * Writes a Fetch answer on a Node response as Next.js writes a route handler's (its
 * `sendResponse`): its compression on the response first, its `Vary`, the status, every header
 * appended in order (framing headers left out), then each body chunk written and flushed through
 * the compression, then the end; a HEAD answer has no body. The same calls in the same order give
 * the same bytes: chunked framing, and gzip or deflate when the client accepts it.
 */
export async function send(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  response: Response,
) {
  compress(req, res, () => {});
  // On a client's disconnect the middleware never ends its zlib stream (Next.js does the same).
  res.once("close", () => {
    if (!res.writableFinished) releaseCompressionStream(res);
  });
  res.appendHeader("vary", APP_VARY);
  res.statusCode = response.status;
  res.statusMessage = response.statusText;
  // (the /v1 router sets no cookie; one would come once per Set-Cookie, as Next.js appends it)
  response.headers.forEach((value, name) => {
    if (FRAMING.has(name) || name === "x-middleware-set-cookie") return;
    if (REPEATABLE.has(name) || res.getHeader(name) === undefined) res.appendHeader(name, value);
  });
  if (!response.body || req.method === "HEAD") return void res.end();
  const flushable = res as http.ServerResponse & { flush?: () => void };
  // One `drain` listener per response: with compression on, a `once` listener would stay on its
  // zlib stream (Next.js's writer does the same).
  let drained: () => void = () => {};
  res.on("drain", () => drained());
  // The head, the body's chunks and the last chunk in one socket write when the body is at hand
  // (a JSON answer is): corked until the loop's next turn. The same bytes, fewer system calls.
  res.cork();
  setImmediate(() => res.uncork());
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const ok = res.write(value);
    flushable.flush?.();
    if (!ok && !res.destroyed) await new Promise<void>((resolve) => (drained = resolve));
  }
  res.end();
}

/** Request headers Next.js acts on itself (its client router, data requests, proxy internals). */
const NEXT_HEADER = /^(rsc|purpose|next-.*|x-nextjs-.*|x-middleware-.*|x-invoke-.*|x-next-.*)$/;
/** A path Next.js redirects, normalizes or runs proxy.ts on before its route handler sees it. */
const PLAIN_PATH = /^\/v1(\/[^/%]+)*$/;
/** Query parameters Next.js reads itself (`_rsc`, `__nextDataReq`, `nxtP…` route values). */
const NEXT_QUERY = /(^|&)(_|nxt)/;

/**
 * Is this /v1 request one Next.js only hands to the route handler, unchanged? Not when its path
 * ends in "/" (Next.js redirects it), holds a "%" (proxy.ts answers some) or a "." or ".."
 * segment, or when it carries a header or query parameter Next.js acts on (its client router's
 * `RSC` requests are redirected, for one): those few go on to Next.js, which answers them as
 * before. The lean path takes the rest (every request a client of the API sends).
 */
export function plainV1(req: http.IncomingMessage): boolean {
  const target = req.url ?? "";
  const cut = target.indexOf("?");
  const pathname = cut < 0 ? target : target.slice(0, cut);
  if (!PLAIN_PATH.test(pathname) || /\/\.\.?(\/|$)/.test(pathname)) return false;
  if (cut >= 0 && NEXT_QUERY.test(target.slice(cut + 1))) return false;
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (NEXT_HEADER.test(req.rawHeaders[i]!.toLowerCase())) return false;
  return true;
}

/** The lean /v1 handler: every /v1 request to the router, answered on the Node response. */
export async function v1Handler(): Promise<Handler> {
  allowServerOnly();
  const { handleV1 } = await import("../server/http/routes");
  return (req, res) => {
    const pathname = (req.url ?? "/").split("?")[0]!;
    const method = req.method ?? "GET";
    void (async () => {
      const response =
        undecodablePathResponse(method, pathname) ?? (await handleV1(toRequest(req)));
      await send(req, res, response);
    })().catch(() => res.destroy());
  };
}
