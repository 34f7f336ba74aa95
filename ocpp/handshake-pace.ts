import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { chargerAddress } from "./auth-limits";
import { createCheckQueue } from "./auth-queue";
import { meteredRefusal } from "./metrics";

/**
 * Longest an upgrade waits for the pace before it is answered 503 (its charger retries). Long, so
 * a storm waits in the line rather than coming back again and again: a refused handshake costs both
 * sides a connection, a request and an answer, and a 5 s line, refusing most of a storm every
 * second, left the connected chargers slower answers than a 30 s one (bench/README.md, "A killed
 * gateway, paced"). A waiting upgrade costs its socket's memory and no CPU; a charger that gives up
 * sooner closes it and leaves the line.
 */
export const PACE_MAX_WAIT_MS = 30_000;

/**
 * The pace new connections are taken at (`OCPP_HANDSHAKES_PER_SECOND`, shared out among the
 * gateway processes): a websocket upgrade waits in a line until its turn comes at `perSecond`, and
 * only then does the gateway parse it, check its password and record its connection. A reconnect
 * storm (a gateway killed and its chargers all back at once) then costs the machine a steady share
 * of its CPU instead of all of it, so the chargers already connected, here and on the other
 * gateways, keep their answers' times (bench/README.md, "A killed gateway, paced").
 *
 * The line is round-robin by client address (`createCheckQueue`, as the password checks are), so
 * a flood from one address is served in turn with everyone else and holds at most a quarter of
 * the line. It holds what the pace serves within `maxWaitMs`: an upgrade that finds it
 * full, or waits that long, is answered `503` with `Retry-After` (the seconds the line ahead of it
 * takes), and its charger tries again, as chargers do. A socket that closes while it waits leaves
 * the line.
 */
export function createHandshakePace({
  perSecond,
  maxWaitMs = PACE_MAX_WAIT_MS,
}: {
  perSecond: number;
  /** `PACE_MAX_WAIT_MS` unless given (tests shorten it) */
  maxWaitMs?: number;
}) {
  const maxWaiting = Math.max(1, Math.ceil((perSecond * maxWaitMs) / 1000));
  const line = createCheckQueue({
    concurrency: Infinity,
    maxWaiting,
    maxWaitingPerAddress: Math.max(1, Math.ceil(maxWaiting / 4)),
    maxWaitMs,
    perSecond,
  });
  let arrivals = 0;
  /** the upgrades waiting, so `close` can let them go */
  const waiting = new Set<AbortController>();
  let closed = false;

  /** Hands `req` to `upgrade` when its turn comes, or answers it 503 (and counts the refusal). */
  function admit(
    req: IncomingMessage,
    socket: Duplex,
    upgrade: (req: IncomingMessage, socket: Duplex) => void,
  ) {
    if (closed) return void socket.destroy();
    const left = new AbortController();
    waiting.add(left);
    const onClose = () => left.abort();
    // A peer that resets while it waits must not take the process down.
    const onError = () => socket.destroy();
    socket.once("close", onClose);
    socket.on("error", onError);
    const refused = meteredRefusal();
    const address = chargerAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"]);
    // Each upgrade is its own turn: names (one station at a time) are the gate's rule, later.
    void line.take(address, String((arrivals += 1)), left.signal).then((turn) => {
      waiting.delete(left);
      socket.off("close", onClose);
      socket.off("error", onError);
      if (turn.ok) {
        turn.done();
        return upgrade(req, socket);
      }
      if (turn.reason === "gone") return socket.destroy();
      refused(503);
      refuseForPace(socket, retryAfterSeconds());
    });
  }

  /** The seconds the line now waiting takes at the pace (at least 1). */
  const retryAfterSeconds = () => Math.max(1, Math.ceil(line.stats().waiting / perSecond));

  /** The gateway is stopping: every waiting upgrade's socket is closed (its charger retries). */
  function close() {
    closed = true;
    for (const left of waiting) left.abort();
  }

  return { admit, close, stats: line.stats };
}

export type HandshakePace = ReturnType<typeof createHandshakePace>;

function refuseForPace(socket: Duplex, retryAfter: number) {
  if (!socket.writable) return socket.destroy();
  const body = `Too many chargers are connecting; retry in ${retryAfter} s.`;
  socket.on("error", () => socket.destroy());
  socket.end(
    "HTTP/1.1 503 Service Unavailable\r\n" +
      "Connection: close\r\n" +
      `Retry-After: ${retryAfter}\r\n` +
      "Content-Type: text/plain; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body,
    () => socket.destroy(),
  );
}
