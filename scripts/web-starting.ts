/**
 * What the web process answers before Next.js is ready (the console being built on a first start,
 * then Next.js preparing): /v1 from the API's own router, which needs nothing of Next.js, and every
 * other path a short "starting" answer (503 with Retry-After; a page that refreshes itself for a
 * browser). scripts/web-server.ts hands every other request to Next.js once it is ready.
 *
 * /v1 is answered as scripts/web-v1.ts says (as it is once Next.js is ready).
 */
import type http from "node:http";
import { DomainError } from "../server/errors";
import { ERROR_STATUS, errorBody, errorHeaders } from "../server/http/errors";
import { isV1, v1Handler, type Handler } from "./web-v1";

export type { Handler };

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
  const v1 = await v1Handler();
  return (req, res) => (isV1(req.url) ? v1(req, res) : starting(req, res));
}
