import { env } from "../env";
import { createOutcomeNotices, type OutcomeNotices } from "../operations/outcome-notices";

/**
 * The channels between the API side and the virtual-charger host (server/sandbox/README.md, The
 * contract): `sandbox` (payload: a station id) wakes the host when a station's charger is wanted,
 * no longer wanted, or has an advance to send; `sandbox_applied` (payload: a session id) is the
 * host's word that it sent an advance and the gateway answered; `sandbox_session` (payload: a
 * session id) is sent with every status change. Every NOTIFY runs in the transaction of its
 * change, so it is delivered at commit.
 */
export const SANDBOX_CHANNEL = "sandbox";
export const APPLIED_CHANNEL = "sandbox_applied";
export const STATUS_CHANNEL = "sandbox_session";

const globalForNotices = globalThis as unknown as {
  __sandboxNotices?: Record<string, OutcomeNotices>;
};

/** This process's shared listener of one sandbox channel (one connection each, on first use). */
export function sandboxNotices(channel: typeof APPLIED_CHANNEL | typeof STATUS_CHANNEL) {
  const url = env().databaseUrl;
  if (!url) throw new Error("DATABASE_URL is not set for this process");
  const all = (globalForNotices.__sandboxNotices ??= {});
  return (all[channel] ??= createOutcomeNotices(url, channel));
}

/**
 * Waits up to `timeoutMs` for `done` to hold, re-checked on each notice about `id` on `channel`
 * and at least every `pollMs` (a lost notice or a dropped listener costs at most that).
 */
export async function waitOnNotices<T>(options: {
  channel: typeof APPLIED_CHANNEL | typeof STATUS_CHANNEL;
  id: string;
  timeoutMs: number;
  read: () => Promise<T>;
  done: (value: T) => boolean;
  pollMs?: number;
}): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  const notice = await sandboxNotices(options.channel).subscribe(options.id);
  try {
    for (;;) {
      const value = await options.read();
      const left = deadline - Date.now();
      if (options.done(value) || left <= 0) return value;
      await notice.next(Math.min(left, options.pollMs ?? 250));
    }
  } finally {
    notice.cancel();
  }
}
