/**
 * What the web process answers before Next.js is ready (the console being built on a first start,
 * then Next.js preparing): /v1 from the API's own router, which needs nothing of Next.js, and every
 * other path a short "starting" answer (503 with Retry-After; a page that refreshes itself for a
 * browser). scripts/web-server.ts hands every request to Next.js once it is ready.
 *
 * What /v1 has from Next.js otherwise, and how it is kept here:
 *  - `proxy.ts` answers paths that are not percent-encoded UTF-8 before Next.js fails on them:
 *    the same answer (`undecodablePathResponse`) is given here;
 *  - `next start` puts the socket's address in `X-Forwarded-For` when it is absent (per-address
 *    limits read it): done here too;
 *  - instrumentation.ts warms the database connections up: here they open on first use;
 *  - person tokens are checked against the built-in provider's keys in the database (or an external
 *    provider's published keys), not through its /oidc routes, which wait for Next.js.
 */
import type http from "node:http";
import { registerHooks } from "node:module";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { DomainError } from "../server/errors";
import { ERROR_STATUS, errorBody, errorHeaders } from "../server/http/errors";
import { undecodablePathResponse } from "../server/http/raw-path";

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * Server modules import "server-only", which throws unless resolved with the react-server
 * condition. This process runs Next.js, so it cannot run under that condition as a whole (React's
 * server build would replace the one Next.js renders pages with): only "server-only" gets it.
 */
function allowServerOnly() {
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
function toRequest(req: http.IncomingMessage): Request {
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

async function send(res: http.ServerResponse, response: Response, head: boolean) {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  res.writeHead(response.status, headers);
  if (head || !response.body) return void res.end();
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream), res);
}

const RETRY_AFTER_SECONDS = 5;

const STARTING_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${RETRY_AFTER_SECONDS}">
<title>Starting…</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2937}</style>
</head>
<body>
<main>
<h1>The console is starting</h1>
<p>On a first start (or after an update) the console is built first, which takes a minute or two.
The API at <code>/v1</code> and the charger gateway already answer.</p>
<p>This page refreshes by itself.</p>
</main>
</body>
</html>
`;

function starting(req: http.IncomingMessage, res: http.ServerResponse) {
  const head = req.method === "HEAD";
  if ((req.headers.accept ?? "").includes("text/html")) {
    res.writeHead(503, {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(Buffer.byteLength(STARTING_PAGE)),
      "Cache-Control": "no-store",
      "Retry-After": String(RETRY_AFTER_SECONDS),
    });
    return void res.end(head ? undefined : STARTING_PAGE);
  }
  const error = new DomainError(
    "service_unavailable",
    "The console is starting; retry shortly. The API at /v1 answers already.",
    {},
    { retryAfterSeconds: RETRY_AFTER_SECONDS },
  );
  const body = JSON.stringify(errorBody(error));
  res.writeHead(ERROR_STATUS[error.code], {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-store",
    ...errorHeaders(error),
  });
  res.end(head ? undefined : body);
}

/** The handler for the time before Next.js is ready: /v1 served, the rest "starting". */
export async function startingHandler(): Promise<Handler> {
  allowServerOnly();
  const { handleV1 } = await import("../server/http/routes");
  return (req, res) => {
    const target = req.url ?? "/";
    const pathname = target.split("?")[0]!;
    if (pathname !== "/v1" && !pathname.startsWith("/v1/")) return starting(req, res);
    const method = req.method ?? "GET";
    void (async () => {
      const response =
        undecodablePathResponse(method, pathname) ?? (await handleV1(toRequest(req)));
      await send(res, response, method === "HEAD");
    })().catch(() => res.destroy());
  };
}
