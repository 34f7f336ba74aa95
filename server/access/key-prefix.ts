/** Every live key starts with this; secrets are 48 base62 characters after it. */
export const LIVE_KEY_PREFIX = "cpk_live_";
