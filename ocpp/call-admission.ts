import { createRPCError } from "ocpp-rpc";

export type CallAdmissionOptions = {
  /** transactions in flight at once: the gateway's pool size, so none waits long for a connection */
  slots: number;
  /** calls waiting at most; one more is answered "busy" at once */
  maxQueued?: number;
  /**
   * The longest a call waits for its turn. One that waited longer is answered "busy" when its turn
   * comes, without touching the database: its charger has likely given up on it (a charger's call
   * timeout is commonly 30 s, ocpp-rpc's 60 s) and sends it again, or will.
   */
  maxWaitMs?: number;
  /** told of each call answered busy, and why (metrics, a log line) */
  onBusy?: (reason: BusyReason) => void;
};

/** Why a call was answered busy: the line was full when it came, or it waited past `maxWaitMs`. */
export type BusyReason = "line_full" | "waited_too_long";

export const DEFAULT_CALL_ADMISSION = { maxQueued: 50_000, maxWaitMs: 25_000 };

/**
 * Prisma's `maxWait` for an admitted call's transaction. Only `slots` of them wait for a pooled
 * connection at once, each behind at most the pool's other transactions (batches, connects,
 * last-seen marks; each ends within its own 15 s timeout), so the wait is bounded without a short
 * limit; a short one would fail a call after a slow spell and waste the work done to reach it.
 */
export const ADMITTED_POOL_WAIT_MS = 30_000;

const BUSY = Symbol("busy");

/** The CALLERROR of a call the gateway had no turn for: nothing was recorded, send it again. */
export const busyError = (): Error =>
  Object.assign(
    createRPCError(
      "InternalError",
      "The service is busy; the call was not recorded, retry it.",
    ) as Error,
    { [BUSY]: true },
  );

/** Is this `busyError`'s (counted by `onBusy`, so not logged call by call)? */
export const isBusyError = (error: unknown) =>
  typeof error === "object" && error !== null && BUSY in error;

/**
 * The gateway's own line for charger calls recorded one at a time in a transaction each (the
 * per-message path of `handleCall`: StartTransaction, StopTransaction, TransactionEvent, …).
 * At most `slots` run at once, sized to the database pool, so a burst (every charger of a
 * country starting a transaction at the same instant) waits here, first come first served,
 * instead of in Prisma's pool, where `maxWait` would fail it after the wait and waste the work.
 * Order per station is kept as far as the line goes: a station's calls are admitted in the order
 * they arrived (a charger has one call in flight anyway).
 *
 * When the line is truly too long the call is answered `busyError` (an OCPP `InternalError`,
 * which says "retry"), never dropped silently, and nothing of it is recorded: past `maxQueued`
 * waiting at once, at once; after waiting `maxWaitMs`, when its turn comes.
 */
export function createCallAdmission({
  slots,
  maxQueued = DEFAULT_CALL_ADMISSION.maxQueued,
  maxWaitMs = DEFAULT_CALL_ADMISSION.maxWaitMs,
  onBusy = () => undefined,
}: CallAdmissionOptions) {
  type Waiting = { since: number; go: () => void; late: () => void };
  // A ring would do; an array with a moving head is as cheap, compacted as it empties.
  let line: Waiting[] = [];
  let head = 0;
  let running = 0;
  let refused = 0;
  let expired = 0;

  function next() {
    while (running < slots && head < line.length) {
      const w = line[head++]!;
      if (head > 1024 && head * 2 > line.length) {
        line = line.slice(head);
        head = 0;
      }
      if (performance.now() - w.since > maxWaitMs) {
        expired++;
        onBusy("waited_too_long");
        w.late();
        continue;
      }
      running++;
      w.go();
    }
  }

  return {
    /**
     * Waits for a turn; the turn is given back by calling what it resolves to (once, after the
     * transaction settled). Rejects with `busyError` when the line is too long (see above).
     */
    async enter(): Promise<() => void> {
      if (running >= slots || head < line.length) {
        if (line.length - head >= maxQueued) {
          refused++;
          onBusy("line_full");
          throw busyError();
        }
        await new Promise<void>((go, fail) =>
          line.push({ since: performance.now(), go, late: () => fail(busyError()) }),
        );
      } else running++;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        running--;
        next();
      };
    },
    /** calls running, waiting, and answered busy so far (for tests and metrics) */
    stats: () => ({ running, waiting: line.length - head, refused, expired }),
  };
}
