// Server code only: a client component that imports this (directly or through any service) fails
// to build. Node entry points (the gateway, scripts, tests) resolve it with the react-server
// condition (`--conditions=react-server`), where it is an empty module.
import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient, type Prisma } from "./generated/prisma/client";
import { env } from "./env";
import { closeKeyCache, noteStatement } from "./access/key-cache";
import { noteWindowsStatement } from "./lib/window-counts";
import { PREPARED, preparedName } from "./db/prepared";

export type Db = InstanceType<typeof PrismaClient>;
/** A client or an interactive transaction: services accept either. */
export type DbTx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

const globalForDb = globalThis as unknown as {
  __db?: Db;
  __dbPool?: pg.Pool;
  __asyncCommitPool?: pg.Pool;
  /** `queryPrepared`'s texts, each with its mark */
  __markedTexts?: Map<string, string>;
};

let overrideUrl: string | undefined;

/** For entry points that start the embedded database themselves (admin CLI): use this URL. */
export function useDatabaseUrl(url: string) {
  overrideUrl = url;
}

/** The database this process uses (DATABASE_URL, or the entry point's own). */
export function requireDatabaseUrl(): string {
  const url = overrideUrl ?? env().databaseUrl;
  if (!url) {
    // `npm start`, the admin CLI and the test harness resolve the database (embedded or not)
    // and pass DATABASE_URL to every process; a process started any other way must do the same.
    throw new Error("DATABASE_URL is not set for this process");
  }
  return url;
}

const poolsOfClients = new WeakMap<object, pg.Pool>();

/** The process-wide Prisma client (one pool per process). */
export function db(): Db {
  if (!globalForDb.__db) {
    // Two connections stay open however idle the process (the pool closes the rest after 10 s):
    // a request after a quiet spell would otherwise wait for a new backend's start and its first,
    // uncached statements (about 30 ms here). Idle ones never keep a finished script running.
    const client = newDb(requireDatabaseUrl(), { max: 10, min: 2 });
    const pool = poolsOfClients.get(client)!;
    // A write to the tables API keys are verified with empties this process's key cache at once
    // (server/access/key-cache.ts); other processes learn of it from the commit's notice. A reset
    // of the rate-limit windows makes it forget its in-memory counts (server/lib/window-counts.ts).
    pool.on("connect", (connection) => {
      const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
      (connection as { query: unknown }).query = (...args: unknown[]) => {
        const first = args[0] as string | { text?: string } | undefined;
        const text = typeof first === "string" ? first : first?.text;
        if (text) {
          noteStatement(text);
          noteWindowsStatement(text);
        }
        return query(...args);
      };
    });
    globalForDb.__db = client;
    globalForDb.__dbPool = pool;
  }
  return globalForDb.__db;
}

/**
 * A Prisma client on a pool of its own of at most `max` connections (`db()` is one with 10). The
 * pool is ours, not the adapter's, so the metrics and `poolSizeOf` can read it; the adapter still
 * ends it when the client disconnects. Tests make small ones (a gateway on a 2-connection pool).
 */
export function newDb(url: string, { max, min = 0 }: { max: number; min?: number }): Db {
  const pool = new pg.Pool({ connectionString: url, max, min, allowExitOnIdle: true });
  const client = new PrismaClient({
    adapter: new PrismaPg(pool, {
      disposeExternalPool: true,
      // a statement marked `PREPARED` is prepared once per connection (server/db/prepared.ts);
      // the rest go unnamed (the adapter's type says string; undefined is what it passes on)
      statementNameGenerator: (query) => preparedName(query.sql) as string,
    }),
  });
  poolsOfClients.set(client, pool);
  return client;
}

/** The most connections the client's pool opens, when the pool is ours (`newDb`, `db()`). */
export function poolSizeOf(client: DbTx): number | undefined {
  return poolsOfClients.get(client)?.options.max;
}

/**
 * The pool under a client of ours. The process's own client is found through `globalThis`: the web
 * process holds this module twice (Next.js's bundle and scripts/web-v1.ts's), and the copy that
 * made the client is not always the one asking.
 */
const poolOf = (client: DbTx): pg.Pool | undefined =>
  client === globalForDb.__db ? globalForDb.__dbPool : poolsOfClients.get(client);

/**
 * One statement on the client's own pool, past Prisma's query engine, which costs CPU on every
 * query (its interpreter and result mapping): for the job kernel's and webhook delivery's hot
 * statements. An interactive transaction, or a client whose pool is not ours, goes through
 * `$queryRaw`, so the statement runs where the caller's other writes do. The rows are pg's, the
 * same as `$queryRaw`'s for every type but int8 (a string here, a bigint there): cast counts.
 */
export async function queryRows<T>(client: DbTx, sql: Prisma.Sql): Promise<T[]> {
  const pool = poolOf(client);
  if (!pool) return client.$queryRaw<T[]>(sql);
  // a statement marked `PREPARED` goes by name here too
  const query = { name: preparedName(sql.text), text: sql.text, values: sql.values };
  return (await pool.query<T & pg.QueryResultRow>(query)).rows;
}

/**
 * `queryRows` for a statement written with `$1…` placeholders, marked `PREPARED`: prepared once
 * per connection on the client's own pool and in an interactive transaction alike (through
 * `$queryRawUnsafe` there, so it runs where the caller's other writes do).
 */
export async function queryPrepared<T>(
  client: DbTx,
  text: string,
  values: unknown[],
): Promise<T[]> {
  // the same string each time for the same text, so its hash is computed once (`preparedName`)
  let marked = globalForDb.__markedTexts?.get(text);
  if (marked === undefined)
    (globalForDb.__markedTexts ??= new Map()).set(text, (marked = `${PREPARED}\n${text}`));
  const pool = poolOf(client);
  if (!pool) return client.$queryRawUnsafe<T[]>(marked, ...values);
  const query = { name: preparedName(marked), text: marked, values };
  return (await pool.query<T & pg.QueryResultRow>(query)).rows;
}

/** The pool under `db()`, once it exists (for the pool gauges). */
export function dbPool(): pg.Pool | undefined {
  return globalForDb.__dbPool;
}

/**
 * A few sessions that commit asynchronously (`synchronous_commit = off`): a commit is visible to
 * every session at once, but returns before its WAL record is flushed, so a crash of PostgreSQL
 * may lose the last fraction of a second of commits (never a part of one, never reordered). Only
 * for writes whose loss is acceptable: the /v1 request counters (server/access/credentials.ts).
 */
export function asyncCommitPool(): pg.Pool {
  globalForDb.__asyncCommitPool ??= new pg.Pool({
    connectionString: requireDatabaseUrl(),
    max: 5,
    min: 1, // kept open, as db()'s are
    allowExitOnIdle: true,
    options: "-c synchronous_commit=off",
  });
  return globalForDb.__asyncCommitPool;
}

export async function closeDb(): Promise<void> {
  const client = globalForDb.__db;
  const pool = globalForDb.__asyncCommitPool;
  globalForDb.__db = undefined;
  globalForDb.__dbPool = undefined;
  globalForDb.__asyncCommitPool = undefined;
  await Promise.all([client?.$disconnect(), pool?.end(), closeKeyCache()]);
}
