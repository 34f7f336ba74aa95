import pg from "pg";
import { env } from "../env";
import { log } from "../log";

/** The channel `completeOperation` notifies in the completing transaction; the payload is the id. */
export const OUTCOME_CHANNEL = "operation_outcomes";

/** A subscription to one operation's outcome notice. */
export type OutcomeNotice = {
  /** resolves on the operation's notice, or after `ms` (whichever is first); never rejects */
  next: (ms: number) => Promise<void>;
  cancel: () => void;
};

export type OutcomeNotices = {
  /** resolves once the subscription is listening (or listening failed: then only `ms` wakes it) */
  subscribe: (operationId: string) => Promise<OutcomeNotice>;
  /** connects now rather than at the first subscription (resolves, never rejects, either way) */
  listen: () => Promise<void>;
  close: () => Promise<void>;
};

/**
 * One LISTEN connection per process and channel (`operation_outcomes` by default; the sandbox
 * waits on its own: server/sandbox/notices.ts), shared by every waiting 202 (a pooled connection cannot hold
 * a LISTEN, and one per waiter would cost a connection per request). It connects on first use; if
 * it fails or drops, waiters still wake on their fallback poll, and the next subscription
 * connects again.
 */
export function createOutcomeNotices(
  databaseUrl: string,
  channel: string = OUTCOME_CHANNEL,
): OutcomeNotices {
  const waiters = new Map<string, Set<() => void>>();
  let listening: Promise<pg.Client | null> | null = null;

  function connect() {
    if (listening) return listening;
    const attempt: Promise<pg.Client | null> = (async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      const lost = (error?: unknown) => {
        if (error) log.warn("notice listener lost", { channel, error });
        if (listening === attempt) listening = null;
        void client.end().catch(() => {});
      };
      client.on("error", lost);
      client.on("end", () => lost());
      client.on("notification", (message) => {
        if (message.channel !== channel || !message.payload) return;
        for (const wake of waiters.get(message.payload) ?? []) wake();
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${channel}`);
        return client;
      } catch (error) {
        lost(error);
        return null;
      }
    })();
    listening = attempt;
    return attempt;
  }

  return {
    subscribe: async (operationId) => {
      let wake: (() => void) | null = null;
      let noticed = false;
      const onNotice = () => {
        noticed = true;
        wake?.();
      };
      const set = waiters.get(operationId) ?? new Set();
      set.add(onNotice);
      waiters.set(operationId, set);
      await connect();
      return {
        next: (ms) =>
          new Promise<void>((resolve) => {
            if (noticed) {
              noticed = false;
              return resolve();
            }
            const timer = setTimeout(done, ms);
            function done() {
              clearTimeout(timer);
              wake = null;
              noticed = false;
              resolve();
            }
            wake = done;
          }),
        cancel: () => {
          set.delete(onNotice);
          if (set.size === 0 && waiters.get(operationId) === set) waiters.delete(operationId);
          wake?.();
        },
      };
    },
    listen: async () => {
      await connect();
    },
    close: async () => {
      const client = await listening;
      listening = null;
      await client?.end().catch(() => {});
    },
  };
}

const globalForNotices = globalThis as unknown as { __outcomeNotices?: OutcomeNotices };

/** The process's shared listener (on DATABASE_URL). */
export function outcomeNotices(): OutcomeNotices {
  const url = env().databaseUrl;
  if (!url) throw new Error("DATABASE_URL is not set for this process");
  globalForNotices.__outcomeNotices ??= createOutcomeNotices(url);
  return globalForNotices.__outcomeNotices;
}
