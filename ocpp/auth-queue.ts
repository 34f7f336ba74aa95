export type CheckQueueOptions = {
  /** password checks running at once (scrypt runs on libuv's pool, 4 threads by default) */
  concurrency: number;
  /** handshakes from one address waiting for a check; more are refused at once */
  maxWaitingPerAddress: number;
  /** handshakes waiting in all; more are refused at once */
  maxWaiting: number;
  /** longest a handshake waits for its turn */
  maxWaitMs: number;
  /**
   * turns granted a second at most (a pace: a token bucket holding a twentieth of a second's
   * turns, so they come evenly rather than in bursts); unset, only `concurrency` bounds them
   */
  perSecond?: number;
};

/**
 * Three checks at once leave one of libuv's four threads to DNS and file work (webhook delivery
 * runs in this process too). 1,024 waiting is about ten seconds of checks.
 */
export const DEFAULT_CHECK_QUEUE: CheckQueueOptions = {
  concurrency: 3,
  maxWaitingPerAddress: 64,
  maxWaiting: 1_024,
  maxWaitMs: 10_000,
};

/**
 * The gate every handshake passes before any check (the reconnect throttle). A reconnecting
 * charger holds its turn until its connection is recorded (one query, and its place in the
 * connection recorder's batched transactions), so a storm's database work stays bounded while the
 * chargers' own BootNotifications (batched too) still find a connection in the pool of 10. 64 at
 * once keep those batches full: with 16, a storm of 5,000 came back in 44 s against 38 s with 64,
 * and with a third fewer refusals (bench/README.md, `storm.ts`). 1,024 waiting, each for at most
 * 5 s, is about five seconds of handshakes at the rate this machine admits (about 200 a second),
 * well within a charger's own handshake timeout: a shorter line (512, 2 s) turned more chargers
 * away after they had waited (a 19,000 storm: 60,000 refusals against 44,000, back in 137 s
 * against 122 s, on a loaded machine). A handshake that finds the line full, or waits its 5 s, is
 * answered 503 and its charger retries, rather than waiting until its own timeout drops it. Lines are round-robin by address, so each retry has a fair chance, and every
 * charger that keeps retrying gets in once the storm's rate falls to what the gateway admits.
 */
export const DEFAULT_HANDSHAKE_GATE: CheckQueueOptions = {
  concurrency: 64,
  maxWaitingPerAddress: 64,
  maxWaiting: 1_024,
  maxWaitMs: 5_000,
};

/** Longest an accepted handshake holds its gate turn while its connection is being recorded. */
export const HANDSHAKE_HOLD_MS = 10_000;

export type Turn =
  | {
      ok: true;
      done: () => void;
      /**
       * frees the name but keeps the turn: an accepted charger that holds its turn until its
       * connection is recorded may already be back with a new handshake
       */
      freeName: () => void;
    }
  /**
   * `name`: a handshake for that station name is already waiting or being checked; `address`:
   * that address already has too many waiting; `busy`: the whole queue is full or slow.
   */
  | { ok: false; reason: "name" | "address" | "busy" | "gone" };

type Waiter = { name: string; grant: (turn: Turn) => void };

/**
 * Password checks take turns, round-robin by client address: each address has its own line and
 * a free slot goes to the next address in the ring, so a flood from a few addresses delays
 * another charger by about one check, not by the flood's length. One station name has at most
 * one handshake waiting or checked at a time (its charger only ever needs one), so guesses at
 * one name are answered at once and hold no slot. Lines and the queue are bounded, so a flood
 * is refused at once rather than held in memory.
 */
export function createCheckQueue(options: CheckQueueOptions) {
  let running = 0;
  let waiting = 0;
  const names = new Set<string>();
  // A Map iterates in insertion order: the first key is the address whose turn is next.
  const lines = new Map<string, Waiter[]>();
  const pace = options.perSecond ? createTokens(options.perSecond) : null;
  /** armed while the line waits for the pace's next token */
  let paced: NodeJS.Timeout | null = null;

  const granted = (name: string): Turn => {
    running += 1;
    let finished = false;
    let named = true;
    const freeName = () => {
      if (named) names.delete(name);
      named = false;
    };
    return {
      ok: true,
      freeName,
      done: () => {
        if (finished) return;
        finished = true;
        running -= 1;
        freeName();
        next();
      },
    };
  };

  function next() {
    while (running < options.concurrency) {
      const first = lines.entries().next();
      if (first.done) return;
      if (pace && !pace.take()) {
        paced ??= setTimeout(() => {
          paced = null;
          next();
        }, pace.msUntilNext());
        return;
      }
      const [address, line] = first.value;
      const waiter = line.shift()!;
      lines.delete(address);
      if (line.length > 0) lines.set(address, line); // to the back of the ring
      waiting -= 1;
      waiter.grant(granted(waiter.name));
    }
  }

  function take(address: string, name: string, signal?: AbortSignal): Promise<Turn> {
    if (signal?.aborted) return Promise.resolve({ ok: false, reason: "gone" });
    if (names.has(name)) return Promise.resolve({ ok: false, reason: "name" });
    if (running < options.concurrency && waiting === 0 && (!pace || pace.take())) {
      names.add(name);
      return Promise.resolve(granted(name));
    }
    const line = lines.get(address) ?? [];
    if (line.length >= options.maxWaitingPerAddress)
      return Promise.resolve({ ok: false, reason: "address" });
    if (waiting >= options.maxWaiting) return Promise.resolve({ ok: false, reason: "busy" });
    return new Promise<Turn>((resolve) => {
      const leave = (reason: "busy" | "gone") => {
        const index = line.indexOf(waiter);
        if (index < 0) return;
        line.splice(index, 1);
        if (line.length === 0) lines.delete(address);
        waiting -= 1;
        names.delete(name);
        settle({ ok: false, reason });
      };
      const timer = setTimeout(() => leave("busy"), options.maxWaitMs);
      const onAbort = () => leave("gone");
      const settle = (turn: Turn) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(turn);
      };
      const waiter: Waiter = { name, grant: settle };
      signal?.addEventListener("abort", onAbort, { once: true });
      line.push(waiter);
      lines.set(address, line);
      names.add(name);
      waiting += 1;
      // held back by the pace alone (no turn running to call `next` when done): wait for a token
      if (pace) next();
    });
  }

  return { take, stats: () => ({ running, waiting }) };
}

/**
 * `perSecond` tokens a second, refilled continuously; at most a twentieth of a second's (and at
 * least one) are held, so an idle spell does not let a burst through.
 */
function createTokens(perSecond: number) {
  const most = Math.max(1, perSecond / 20);
  let tokens = most;
  let at = performance.now();
  const refill = () => {
    const now = performance.now();
    tokens = Math.min(most, tokens + ((now - at) * perSecond) / 1000);
    at = now;
  };
  return {
    take: () => {
      refill();
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    /** until a whole token is back (at least 1 ms) */
    msUntilNext: () => Math.max(1, Math.ceil(((1 - tokens) * 1000) / perSecond)),
  };
}

export type CheckQueue = ReturnType<typeof createCheckQueue>;
