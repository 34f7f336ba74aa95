/** Checked refusals remembered: a second or two of checks, so the holds follow the load. */
const SAMPLES = 32;

/** Longest an unchecked refusal is held (a checked one can wait this long for its turn). */
const MAX_HOLD_MS = 10_000;

/**
 * How long a handshake's refusal takes, whichever branch refused it. A wrong password is
 * refused after a password check (one scrypt, a dummy hash for unknown names: ~45 ms idle,
 * 100+ ms on a loaded machine), but a name or address past its attempt limits, or a name whose
 * previous handshake is still in its turn, is refused with a 429 without a check, in a few ms.
 * Measured from outside, a name hit repeatedly (a known one, by whoever probes it) then answered
 * 7 times faster than fresh names did, which read as "this name exists". So an unchecked refusal
 * is answered only once it has taken as long as a checked one: a duration drawn from the last
 * checked refusals of this gateway (so the two follow one distribution under any load), waited
 * on a timer, never by checking (a locked name's guesses cost no CPU; that is what the limit is
 * for). The turn is given back before the wait, so held refusals block no one.
 */
export function createRefusalPace({ random = Math.random }: { random?: () => number } = {}) {
  const checked: number[] = [];
  let oldest = 0;
  return {
    /** a refusal that checked a password took `ms` from its handshake's start */
    checked(ms: number) {
      if (checked.length < SAMPLES) checked.push(ms);
      else {
        checked[oldest] = ms;
        oldest = (oldest + 1) % SAMPLES;
      }
    },
    /** how much longer an unchecked refusal that has taken `elapsedMs` so far is held */
    holdMs(elapsedMs: number): number {
      if (checked.length === 0) return 0;
      const like = checked[Math.floor(random() * checked.length)]!;
      return Math.max(0, Math.min(like, MAX_HOLD_MS) - elapsedMs);
    },
  };
}

export type RefusalPace = ReturnType<typeof createRefusalPace>;
