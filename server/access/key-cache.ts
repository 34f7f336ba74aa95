import pg from "pg";
import { log } from "../log";

/** The channel the auth tables' triggers notify at commit (migration `auth_change_notices`). */
export const AUTH_CHANNEL = "auth_changes";

/** A write to one of the tables a key's verification reads, as our own pool sends it. */
const AUTH_WRITE =
  /^\s*(?:UPDATE|DELETE\s+FROM|INSERT\s+INTO|TRUNCATE(?:\s+TABLE)?)\s+(?:"?public"?\.)?"?(?:api_keys|users|team_members|tenants)\b/i;

/**
 * The name every key cache's listener gives its session, so a process can count the listeners on
 * its database (`alone`), and the payload a listener's start notifies the others with.
 */
export const LISTENER_NAME = "chargecloud key cache";

/** A client's PostgreSQL backend process id (pg sets `processID` on connecting; not in its types). */
const backendPid = (client: pg.Client) => (client as unknown as { processID?: number }).processID;

export type KeyCacheOptions = {
  databaseUrl: string;
  /** how long an entry is trusted at most, notices or not (a backstop for a lost notice) */
  ttlMs?: number;
  /** the shortest time between two attempts to listen again after the listener failed */
  retryMs?: number;
  /** how often the listeners on the database are counted (`alone`) */
  aloneCheckMs?: number;
};

/**
 * What the process verified of API keys, by the hash of their secret, trusted only while this
 * process listens on `auth_changes` (server/access/README.md, "The key cache"):
 *  - every notice (any change to keys, users' suspension or platform role, memberships or
 *    tenants' teams, committed by any process) empties it, as does a write to those tables through
 *    this process's own pool (`noteStatement`), at once, before that write commits;
 *  - while the listener is not up (not yet connected, or its connection lost), nothing is read
 *    from it or put in it: every request reads the database, as without a cache;
 *  - a lookup's result is kept only if no notice arrived and the listener stayed up while it ran
 *    (`begin` / `set`), so a row read before a change is never kept after its notice;
 *  - each entry is trusted for `ttlMs` at most.
 *
 * It also tells whether this process is the only one on its database with such a listener
 * (`alone`): each listener names its session `LISTENER_NAME`, counts those sessions in
 * `pg_stat_activity` when it comes up and every `aloneCheckMs`, and announces itself with a notice
 * before the process serves (`NOTIFY auth_changes, 'listener'`), which ends "alone" in every other
 * process at once; a count is applied only if no such notice arrived while it ran. The rate
 * limit's counts use it (server/lib/window-counts.ts).
 */
export function createKeyCache<T>({
  databaseUrl,
  ttlMs = 30_000,
  retryMs = 1_000,
  aloneCheckMs = 5_000,
}: KeyCacheOptions) {
  const entries = new Map<string, { value: T; at: number }>();
  /** bumped by every notice, by the listener's coming up or going down, and by our own writes */
  let epoch = 0;
  let client: pg.Client | null = null;
  let up = false;
  let connecting = false;
  let lastAttempt = -Infinity;
  let closed = false;
  const noticeWaiters = new Set<() => void>();
  /** whether the last count of listeners found this one alone (and no listener started since) */
  let alone = false;
  /** bumped by every other listener's start notice: a count begun before it is stale */
  let listenersEpoch = 0;
  let aloneTimer: NodeJS.Timeout | undefined;

  const invalidate = () => {
    epoch++;
    entries.clear();
  };

  /** Counts the listeners on the database; "alone" when this one is the only one. */
  function countListeners(listener: pg.Client) {
    const epochAtStart = listenersEpoch;
    listener
      .query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = $1`,
        [LISTENER_NAME],
      )
      .then(
        ({ rows }) => {
          if (client === listener && up && epochAtStart === listenersEpoch)
            alone = rows[0]?.n === 1;
        },
        () => (alone = false),
      );
  }

  function listen() {
    if (up || connecting || closed || Date.now() - lastAttempt < retryMs) return;
    connecting = true;
    lastAttempt = Date.now();
    const listener = new pg.Client({
      connectionString: databaseUrl,
      keepAlive: true,
      application_name: LISTENER_NAME,
    });
    client = listener;
    let lostOnce = false;
    const lost = (error?: unknown) => {
      if (lostOnce) return;
      lostOnce = true;
      if (error && !closed) log.warn("key cache listener lost", { error });
      if (client === listener) client = null;
      up = false;
      alone = false;
      clearInterval(aloneTimer);
      connecting = false;
      invalidate();
      void listener.end().catch(() => {});
    };
    listener.on("error", lost);
    listener.on("end", () => lost());
    listener.on("notification", (message) => {
      if (message.channel !== AUTH_CHANNEL) return;
      // another listener started (our own start's notice comes back to us too)
      const own = message.processId === backendPid(listener);
      if (message.payload === "listener" && !own) {
        listenersEpoch++;
        alone = false;
      }
      invalidate();
      for (const wake of noticeWaiters) wake();
    });
    listener
      .connect()
      .then(() => listener.query(`LISTEN ${AUTH_CHANNEL}`))
      // before this process uses its cache: every other process stops counting on being alone
      .then(() => listener.query(`NOTIFY ${AUTH_CHANNEL}, 'listener'`))
      .then(() => {
        if (lostOnce) return;
        connecting = false;
        up = !closed;
        invalidate();
        if (!up) return;
        countListeners(listener);
        aloneTimer = setInterval(() => countListeners(listener), aloneCheckMs);
        aloneTimer.unref();
      })
      .catch(lost);
  }

  const cache = {
    /** The entry for a secret's hash, if it can be trusted now; else undefined. */
    get(hash: string, now = Date.now()): T | undefined {
      if (!up) {
        listen();
        return undefined;
      }
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (now - entry.at > ttlMs) {
        entries.delete(hash);
        return undefined;
      }
      return entry.value;
    },
    /** Taken before a lookup whose result may be kept: null when it may not (not listening). */
    begin(): number | null {
      if (!up) {
        listen();
        return null;
      }
      return epoch;
    },
    /** Keeps a lookup's result, unless something changed since its `begin`. */
    set(hash: string, value: T, ticket: number | null, now = Date.now()) {
      if (ticket === null || ticket !== epoch || !up) return;
      entries.set(hash, { value, at: now });
    },
    /** Empties the cache: this process is writing to a table auth reads (`noteStatement`). */
    changed: invalidate,
    /** Whether the cache is in use (its listener is up). */
    listening: () => up,
    /**
     * Whether this process's listener is the only one on the database, by the last count (and no
     * other started since): no other web process counts this database's rate-limit windows.
     */
    alone: () => up && alone,
    size: () => entries.size,
    /** the listener's backend process id (tests end it to see the cache fall back) */
    listenerPid: (): number | undefined => (up && client ? backendPid(client) : undefined),
    /** Starts listening now, and resolves once listening (or after `ms`, if it cannot). */
    async ready(ms = 5_000): Promise<boolean> {
      const deadline = Date.now() + ms;
      while (!up && Date.now() < deadline) {
        listen();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return up;
    },
    /** Resolves at the next notice on the channel, or after `ms` (false then). */
    nextNotice(ms: number): Promise<boolean> {
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          noticeWaiters.delete(wake);
          resolve(true);
        };
        const timer = setTimeout(() => {
          noticeWaiters.delete(wake);
          resolve(false);
        }, ms);
        noticeWaiters.add(wake);
      });
    },
    async close() {
      closed = true;
      up = false;
      alone = false;
      clearInterval(aloneTimer);
      invalidate();
      live().delete(cache);
      await client?.end().catch(() => {});
      client = null;
    },
  };
  live().add(cache);
  return cache;
}

type Noted = { changed: () => void };
const globalForCache = globalThis as unknown as {
  __keyCache?: KeyCache<unknown>;
  __keyCaches?: Set<Noted>;
};
/** Every open cache of this process (the process's own, and tests' stand-ins for others). */
const live = () => (globalForCache.__keyCaches ??= new Set());

export type KeyCache<T> = ReturnType<typeof createKeyCache<T>>;

/**
 * The process's cache (on DATABASE_URL). On `globalThis`: the web process holds the server
 * modules twice (Next.js's bundle and scripts/web-v1.ts's), and both must see one cache.
 */
export function keyCache<T>(databaseUrl: () => string): KeyCache<T> {
  globalForCache.__keyCache ??= createKeyCache<unknown>({ databaseUrl: databaseUrl() });
  return globalForCache.__keyCache as KeyCache<T>;
}

/** For the process's own pool: a statement it sends, which empties the cache if it writes auth. */
export function noteStatement(text: string) {
  const caches = live();
  // a process without a cache (a gateway, a job runner) pays one size check per statement
  if (caches.size === 0 || !AUTH_WRITE.test(text)) return;
  for (const cache of caches) cache.changed();
}

/** Stops the process's cache (its listener); the next use starts a new one. */
export async function closeKeyCache() {
  const cache = globalForCache.__keyCache;
  globalForCache.__keyCache = undefined;
  await cache?.close();
}
