import http from "node:http";
import https from "node:https";
import net from "node:net";
import { agentFor, pinnedLookup } from "./connections";
import { vetDestination, type Resolver } from "./destination";

/** Delivery contract item 4: each step 10 s, a whole attempt 15 s. Item 3: headers up to 32 KiB. */
export const STEP_TIMEOUT_MS = 10_000;
export const ATTEMPT_TIMEOUT_MS = 15_000;
export const MAX_HEADER_BYTES = 32 * 1024;
/**
 * A response body is read past the outcome only to keep the connection for the next attempt:
 * one longer or slower than this closes the connection instead.
 */
const DRAIN_BYTES = 64 * 1024;
const DRAIN_MS = 2_000;
/** A kept-alive connection the receiver closed before it answered: tried once on a new one. */
const STALE = "StaleConnection";

export type AttemptResult = { ok: boolean; status: number | null; error: string | null };

/**
 * Tests only; production never sets it. Where the bytes for a vetted address and port really go
 * (an IP address and port on this machine), and a test certificate authority to trust. Vetting,
 * the Host header, SNI and TLS's check of the hostname are the same as without it.
 */
export type TestNetwork = {
  connectTo: (address: string, port: number) => { host: string; port: number };
  ca?: string;
};

/**
 * One POST. The hostname is resolved now and the connection goes to a vetted address itself (a
 * custom `lookup`), so DNS rebinding between the check and the connect cannot slip through; with
 * any non-public address nothing is sent (`DestinationRefused`). Only the status line and headers
 * decide; redirects are not followed; any 2xx acknowledges. Connections to a vetted address are
 * kept alive for the next attempt to it (./connections.ts); a kept connection the receiver had
 * closed is retried at once on a new one (a receiver may see the POST twice, as at-least-once
 * delivery allows; `Service-Event-Id` is its idempotency key).
 */
export async function sendAttempt(options: {
  url: string;
  body: string;
  headers: Record<string, string>;
  allowPrivate: boolean;
  resolve: Resolver;
  stepTimeoutMs?: number;
  attemptTimeoutMs?: number;
  testNetwork?: TestNetwork;
}): Promise<AttemptResult> {
  const url = new URL(options.url);
  let addresses: string[] | null;
  try {
    addresses = await vetDestination(url.hostname, {
      allowPrivate: options.allowPrivate,
      resolve: options.resolve,
    });
  } catch (error) {
    return {
      ok: false,
      status: null,
      error: `DnsError: ${(error as { code?: string }).code ?? "lookup failed"}`,
    };
  }
  if (!addresses) return { ok: false, status: null, error: "DestinationRefused" };
  let last: AttemptResult = { ok: false, status: null, error: "ConnectFailed" };
  const deadline = Date.now() + (options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS);
  // Addresses in resolver order until one connects (delivery contract item 8).
  for (const address of addresses) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { ok: false, status: null, error: "AttemptTimeout" };
    const attemptMs = Math.min(remaining, options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS);
    last = await post(url, address, options, attemptMs, true);
    if (last.error === STALE) last = await post(url, address, options, attemptMs, false);
    if (last.error !== "ConnectFailed" && last.error !== "ConnectTimeout") return last;
  }
  return last;
}

function post(
  url: URL,
  address: string,
  options: {
    body: string;
    headers: Record<string, string>;
    stepTimeoutMs?: number;
    testNetwork?: TestNetwork;
  },
  attemptMs: number,
  keptAlive: boolean,
): Promise<AttemptResult> {
  const step = options.stepTimeoutMs ?? STEP_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult, response?: http.IncomingMessage) => {
      if (settled) return;
      settled = true;
      clearTimeout(attemptTimer);
      clearTimeout(stepTimer);
      if (response) drain(request, response);
      else request.destroy();
      resolve(result);
    };
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    const target = options.testNetwork?.connectTo(address, port) ?? { host: address, port };
    const family = net.isIP(target.host) as 4 | 6;
    const protocol = url.protocol === "https:" ? "https:" : "http:";
    const transport = protocol === "https:" ? https : http;
    const request = transport.request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      port: target.port,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      // Host is the URL's, wherever the connection goes
      headers: {
        ...options.headers,
        host: url.host,
        "content-length": Buffer.byteLength(options.body),
      },
      // connect to the vetted address, whatever DNS says now (TLS still checks the hostname)
      lookup: pinnedLookup(target.host, family),
      servername: net.isIP(url.hostname) ? undefined : url.hostname,
      ...(options.testNetwork?.ca ? { ca: options.testNetwork.ca } : {}),
      maxHeaderSize: MAX_HEADER_BYTES,
      agent: keptAlive
        ? agentFor({
            protocol,
            vetted: address,
            host: target.host,
            port: target.port,
            ca: options.testNetwork?.ca,
          })
        : false,
    });
    const attemptTimer = setTimeout(
      () => finish({ ok: false, status: null, error: "AttemptTimeout" }),
      attemptMs,
    );
    let stepTimer = setTimeout(
      () => finish({ ok: false, status: null, error: "ConnectTimeout" }),
      step,
    );
    request.on("socket", (socket) => {
      const connected = () => {
        clearTimeout(stepTimer);
        stepTimer = setTimeout(
          () => finish({ ok: false, status: null, error: "WriteTimeout" }),
          step,
        );
      };
      // a kept-alive connection is connected already (and must not gather listeners)
      if (request.reusedSocket) connected();
      else socket.once(url.protocol === "https:" ? "secureConnect" : "connect", connected);
    });
    request.on("finish", () => {
      clearTimeout(stepTimer);
      stepTimer = setTimeout(() => finish({ ok: false, status: null, error: "ReadTimeout" }), step);
    });
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      finish(
        {
          ok: status >= 200 && status < 300,
          status,
          error: status >= 200 && status < 300 ? null : `HttpStatus${status}`,
        },
        response,
      );
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? "";
      if (request.reusedSocket && ["ECONNRESET", "EPIPE", "ECONNABORTED"].includes(code))
        return finish({ ok: false, status: null, error: STALE });
      if (code === "HPE_HEADER_OVERFLOW")
        return finish({ ok: false, status: null, error: "ResponseHeadersTooLarge" });
      if (
        ["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET"].includes(code) &&
        !request.reusedSocket
      ) {
        return finish({
          ok: false,
          status: null,
          error: code === "ECONNRESET" ? "ConnectionReset" : "ConnectFailed",
        });
      }
      finish({
        ok: false,
        status: null,
        error:
          code.startsWith("ERR_TLS") || code.includes("CERT")
            ? `TlsError: ${code}`
            : `NetworkError: ${code || error.message}`,
      });
    });
    request.end(options.body);
  });
}

/**
 * Reads and discards the rest of an answer whose status already decided the outcome, so its
 * connection returns to the pool; a body longer or slower than the limits closes it instead.
 */
function drain(request: http.ClientRequest, response: http.IncomingMessage) {
  let bytes = 0;
  const timer = setTimeout(() => request.destroy(), DRAIN_MS);
  const done = () => clearTimeout(timer);
  response.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > DRAIN_BYTES) request.destroy();
  });
  response.on("error", done);
  response.once("end", done);
  response.once("close", done);
}
