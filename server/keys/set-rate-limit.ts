import type { DbTx } from "../db";
import { db as defaultDb } from "../db";

export const RATE_LIMIT_MIN = 1;
export const RATE_LIMIT_MAX = 1200;

export type SetRateLimitOptions = { keyId: string; perMinute: number; db?: DbTx };

/** Changes a key's per-minute limit; read on every request, so it applies at once. */
export async function setApiKeyRateLimit({
  keyId,
  perMinute,
  db = defaultDb(),
}: SetRateLimitOptions) {
  if (!Number.isInteger(perMinute) || perMinute < RATE_LIMIT_MIN || perMinute > RATE_LIMIT_MAX) {
    throw new RangeError(
      `rate limit must be an integer from ${RATE_LIMIT_MIN} to ${RATE_LIMIT_MAX}`,
    );
  }
  return db.apiKey.update({ where: { id: keyId }, data: { rateLimitPerMinute: perMinute } });
}
