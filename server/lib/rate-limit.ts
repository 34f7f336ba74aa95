import type { Db } from "../db";
import { DomainError } from "../errors";
import { Prisma } from "../generated/prisma/client";

export type RateLimitState = {
  limit: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
};

const WINDOW_MS = 60_000;

/**
 * The window rule, as the conflict clause of an INSERT into `rate_limit_windows AS w`: an attempt
 * in the bucket's current window counts on, one in a later window starts it again at 1.
 */
export const BUMP_WINDOW_SQL = `ON CONFLICT (api_key_id) DO UPDATE SET
  count = CASE WHEN w.window_start = EXCLUDED.window_start THEN w.count + 1 ELSE 1 END,
  window_start = EXCLUDED.window_start`;

/** The start of the fixed one-minute window `now` falls in. */
export const windowStart = (now: number) => new Date(now - (now % WINDOW_MS));

/** What a window's count says of an attempt: the limit's headers, and whether it is refused. */
export function limitState(count: number, limit: number, now: number): RateLimitState {
  const resetSeconds = Math.max(
    1,
    Math.ceil((windowStart(now).getTime() + WINDOW_MS - now) / 1000),
  );
  return { limit, remaining: Math.max(0, limit - count), resetSeconds, exceeded: count > limit };
}

/**
 * Counts one attempt against a bucket's fixed one-minute window (an API key, a sign-in email, a
 * client address). The counter lives in PostgreSQL, so the limit holds across any number of
 * processes; one row per bucket, updated atomically.
 */
export async function countAttempt(
  db: Db,
  bucket: string,
  limit: number,
  now = Date.now(),
): Promise<RateLimitState> {
  const rows = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO rate_limit_windows AS w (api_key_id, window_start, count)
    VALUES (${bucket}, ${windowStart(now)}, 1)
    ${Prisma.raw(BUMP_WINDOW_SQL)}
    RETURNING count`;
  return limitState(rows[0]?.count ?? 1, limit, now);
}

export const rateLimited = (state: RateLimitState) =>
  new DomainError(
    "rate_limited",
    `Rate limit of ${state.limit} requests per minute exceeded; retry after ${state.resetSeconds} s.`,
    { limit: state.limit, retry_after_seconds: state.resetSeconds },
    { retryAfterSeconds: state.resetSeconds },
  );

/** Counts one attempt and refuses it (429 `rate_limited`) past the limit. */
export async function consumeRateLimit(
  db: Db,
  bucket: string,
  limit: number,
  now = Date.now(),
): Promise<RateLimitState> {
  const state = await countAttempt(db, bucket, limit, now);
  if (state.exceeded) throw rateLimited(state);
  return state;
}
