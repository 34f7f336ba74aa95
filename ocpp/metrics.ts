import type { ChargerLink } from "../server/operations/dispatch-operation";
import { metrics } from "../server/metrics/registry";

/**
 * The gateway's instruments, each a wrapper its caller adds in one line, so the code it times
 * keeps its shape. README.md, "Metrics", lists what they export.
 */

/** Starts a handshake's timer; the returned function counts its answer, timed from now. */
function handshakeTimer() {
  const m = metrics();
  const end = m.ocppHandshakeDuration.startTimer();
  return (outcome: "accepted" | "refused", status: number) => {
    m.ocppHandshakes.inc({ outcome, status: String(status) });
    end({ outcome });
  };
}

/**
 * Counts a handshake by the answer it gets: `accept` is 101 (the upgrade), `reject` its status.
 * The duration runs from the check's start to that answer.
 */
export function meteredHandshake<A extends unknown[]>(
  accept: (...args: A) => void,
  reject: (code: number, message: string) => void,
): [(...args: A) => void, (code: number, message: string) => void] {
  const answered = handshakeTimer();
  return [
    (...args) => {
      answered("accepted", 101);
      accept(...args);
    },
    (code, message) => {
      answered("refused", code);
      reject(code, message);
    },
  ];
}

/**
 * For an upgrade that may be refused before the check (the pace's line): call when it arrives;
 * the returned function counts its refusal with `status`, timed from its arrival (its wait in the
 * line). One let through is counted by the check's own `meteredHandshake`.
 */
export function meteredRefusal(): (status: number) => void {
  const answered = handshakeTimer();
  return (status) => answered("refused", status);
}

/**
 * Times one charger call as handled (`call`, already started) by its action, which strict mode
 * has checked against the official schemas (a bounded set of names), and its outcome: `ok`
 * (answered, a neutral fallback answer included), `refused` (a CALLERROR the same message would
 * get again: bad input) or `error` (InternalError: a fault on our side, worth a retry).
 */
export function observeCall<T>(action: string, call: Promise<T>): Promise<T> {
  const end = metrics().ocppMessageDuration.startTimer({ action });
  void call.then(
    () => end({ outcome: "ok" }),
    (error: unknown) =>
      end({
        outcome:
          (error as { rpcErrorCode?: unknown } | null)?.rpcErrorCode === "InternalError"
            ? "error"
            : "refused",
      }),
  );
  return call;
}

/** A station's link whose sends are timed by action and outcome (the send result's kind). */
export function meteredLink(link: ChargerLink): ChargerLink {
  return {
    protocol: link.protocol,
    send: async (call) => {
      const end = metrics().ocppCommandDuration.startTimer({ action: call.action });
      const result = await link.send(call);
      end({ outcome: result.kind });
      return result;
    },
  };
}
