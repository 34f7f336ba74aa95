import type { Db } from "../db";
import { ApiError } from "../errors";

export type RateLimitState = { limit: number; remaining: number; resetSeconds: number };

const WINDOW_MS = 60_000;

/**
 * Counts one request against the key's fixed one-minute window. The counter lives in PostgreSQL,
 * so the limit holds across any number of web processes; one row per key, updated atomically.
 */
export async function consumeRateLimit(
  db: Db,
  keyId: string,
  limit: number,
  now = Date.now(),
): Promise<RateLimitState> {
  const windowStart = new Date(now - (now % WINDOW_MS));
  const rows = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO rate_limit_windows (api_key_id, window_start, count)
    VALUES (${keyId}, ${windowStart}, 1)
    ON CONFLICT (api_key_id) DO UPDATE SET
      count = CASE WHEN rate_limit_windows.window_start = EXCLUDED.window_start
                   THEN rate_limit_windows.count + 1 ELSE 1 END,
      window_start = EXCLUDED.window_start
    RETURNING count`;
  const count = rows[0]?.count ?? 1;
  const resetSeconds = Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now) / 1000));
  const state = { limit, remaining: Math.max(0, limit - count), resetSeconds };
  if (count > limit) {
    throw new ApiError(
      "rate_limited",
      `Rate limit of ${limit} requests per minute exceeded; retry after ${resetSeconds} s.`,
      { limit, retry_after_seconds: resetSeconds },
      { ...rateLimitHeaders(state), "Retry-After": String(resetSeconds) },
    );
  }
  return state;
}

/** Documented rate-limit headers (IETF RateLimit header fields draft, plain form). */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    "RateLimit-Limit": String(state.limit),
    "RateLimit-Remaining": String(state.remaining),
    "RateLimit-Reset": String(state.resetSeconds),
  };
}
