/**
 * The web process: Next.js (the console, /api/*) behind a plain Node HTTP server that serves /v1
 * itself, straight to the API's router (scripts/web-v1.ts: Next.js's per-request cost was most of
 * a /v1 request's CPU; `WEB_V1_VIA_NEXT=1` hands /v1 to Next.js's route handler as before), and
 * answers, in the API's error shape, what Next.js cannot handle, before Next sees it:
 *  - methods a Fetch `Request` cannot carry (`TRACE`, `TRACK`, `CONNECT`) or Next does not route
 *    (WebDAV verbs…): Next answered a plain-text 500 or an empty 400;
 *  - request targets that are not a path (`OPTIONS *`, absolute forms): Next failed to parse them;
 *  - requests Node's HTTP parser refuses (oversized or malformed headers): a bare status line.
 * Everything else goes to Next's own request handler unchanged. `npm start` (scripts/start.ts) runs
 * it as `node --import tsx scripts/web-server.ts`; PORT sets the port.
 *
 * With CONSOLE_BUILT=0 (the console's build is still running) it listens at once and answers as
 * scripts/web-starting.ts says (/v1 served, the console "starting") until `npm start` sends
 * `{ console: "built" }`; then Next.js is prepared and takes over every request. It tells `npm
 * start` over its IPC channel when it listens and when the console answers, and stops when that
 * channel closes (the supervisor is gone, however it went).
 */
import http from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import next from "next";
import { DomainError } from "../server/errors";
import { ERROR_STATUS, errorBody, errorHeaders } from "../server/http/errors";
import { runShutdownHooks } from "../server/lib/shutdown";
import { startingHandler, type Handler } from "./web-starting";
import { isV1, plainV1, v1Handler } from "./web-v1";

const ROOT = path.resolve(import.meta.dirname, "..");
const HANDLED = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** What this front answers itself instead of handing the request to Next, or null. */
export function refusal(method: string | undefined, target: string | undefined) {
  if (!method || !HANDLED.includes(method)) {
    return new DomainError(
      "method_not_allowed",
      `${(method ?? "").slice(0, 10)} is not supported.`,
      { allowed_methods: HANDLED },
    );
  }
  if (!target?.startsWith("/"))
    return new DomainError("malformed_request", "The request target must be a path.");
  return null;
}

function answer(error: DomainError) {
  const body = JSON.stringify(errorBody(error));
  const headers = {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Length": String(Buffer.byteLength(body)),
    ...errorHeaders(error),
  };
  return { status: ERROR_STATUS[error.code], headers, body };
}

const malformed = () => new DomainError("malformed_request", "The request could not be parsed.");

/** Writes a whole answer on a socket no HTTP response object owns, then closes it. */
function endRaw(socket: Duplex, { status, headers, body }: ReturnType<typeof answer>) {
  const lines = Object.entries({ ...headers, Connection: "close" }).map(([k, v]) => `${k}: ${v}`);
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${lines.join("\r\n")}\r\n\r\n${body}`,
  );
}

/**
 * Next.js's handler, once its build is there and it has read it: every request but /v1's, which
 * the router answers directly (scripts/web-v1.ts; a few /v1 requests Next.js acts on itself still
 * go to it), unless `viaNext` (the path before, kept as a switch).
 */
async function nextHandler(port: number, viaNext: boolean): Promise<Handler> {
  const app = next({ dev: false, dir: ROOT, port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const viaNextJs: Handler = (req, res) => void handle(req, res);
  return viaNext ? viaNextJs : withV1(viaNextJs, await v1Handler());
}

/** `next` for every request but a plain /v1 one (`plainV1`), which `v1` answers. */
export function withV1(next: Handler, v1: Handler): Handler {
  return (req, res) => (isV1(req.url) && plainV1(req) ? v1(req, res) : next(req, res));
}

async function main() {
  const port = Number(process.env.PORT ?? 3000);
  const building = process.env.CONSOLE_BUILT === "0";
  const viaNext = process.env.WEB_V1_VIA_NEXT === "1";
  let handler = building ? await startingHandler() : await nextHandler(port, viaNext);
  const server = http.createServer((req, res) => {
    const refused = refusal(req.method, req.url);
    if (!refused) return handler(req, res);
    const { status, headers, body } = answer(refused);
    res.writeHead(status, headers);
    res.end(req.method === "HEAD" ? undefined : body);
  });
  // What Node's parser refuses never reaches a handler: answer it in the same shape, then close.
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    endRaw(
      socket,
      answer(
        error.code === "HPE_HEADER_OVERFLOW"
          ? new DomainError("headers_too_large", "The request's headers are too large.")
          : new DomainError("malformed_request", "The request could not be parsed."),
      ),
    );
  });
  // CONNECT never becomes a request: Node hands over the raw socket.
  server.on("connect", (req: http.IncomingMessage, socket: Duplex) =>
    endRaw(socket, answer(refusal(req.method, req.url) ?? malformed())),
  );
  let switching = false;
  process.on("message", (message: { console?: string }) => {
    if (message.console !== "built" || !building || switching) return;
    switching = true;
    void nextHandler(port, viaNext).then(
      (ready) => {
        handler = ready;
        console.log("console ready");
        process.send?.({ web: "console-ready" });
      },
      (error: unknown) => {
        console.error("preparing the console failed:", error);
        process.exit(1);
      },
    );
  });
  server.listen(port, () => {
    console.log(`web listening on ${port}${building ? " (the console is being built)" : ""}`);
    process.send?.({ web: "listening", console: building ? "building" : "ready" });
  });
  let finishing: Promise<void> | undefined;
  // What must be written before the end (the API request counts), then exit.
  const finish = () => {
    finishing ??= runShutdownHooks().finally(() => process.exit(0));
  };
  const stop = () => {
    // once the last request is answered; requests still running after 6 s are not waited for
    server.close(finish);
    setTimeout(finish, 6_000).unref();
    // Under `npm start` the supervisor kills what has not stopped in 10 s; without it, do it here.
    setTimeout(() => process.exit(0), 8_000).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // The IPC channel to `npm start` closed: it is gone (even a `kill -9` closes it).
  process.on("disconnect", stop);
  if (process.send && !process.connected) stop(); // it went while this process was starting
}

if (process.argv[1] === import.meta.filename) {
  // Once `npm start`, which reads this output, is gone, writing it fails (EPIPE): not a crash.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  await main();
}
