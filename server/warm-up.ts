import { keyCache } from "./access/key-cache";
import { asyncCommitPool, db, dbPool, requireDatabaseUrl } from "./db";
import { log } from "./log";
import { outcomeNotices } from "./operations/outcome-notices";

/**
 * Opens, as the web process starts, what its first requests would otherwise open on their way:
 * the connections its pools keep (`min` in ./db.ts), the operations' outcome listener and the key
 * cache's (server/access/key-cache.ts: until it listens, every key is read from the database). The
 * first command after a start waited for all three (68 ms of its 136 ms here, bench/README.md).
 * Never fails the start: whatever does not open here opens on first use, as before.
 */
export async function warmUp() {
  try {
    await db().$connect();
    const pool = dbPool()!;
    const kept = await Promise.all([pool.connect(), pool.connect()]);
    await Promise.all([
      ...kept.map(async (client) => {
        await client.query("SELECT 1");
        client.release();
      }),
      asyncCommitPool().query("SELECT 1"),
      outcomeNotices().listen(),
      keyCache(requireDatabaseUrl).ready(),
    ]);
  } catch (error) {
    log.warn("warming up the database connections failed; they open on first use", { error });
  }
}
