import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

/**
 * Applies prisma/migrations in order, recording them in Prisma's own `_prisma_migrations` table so
 * `prisma migrate status` agrees. Runs in-process at start (no engine binary needed). A PostgreSQL
 * advisory lock makes concurrent starters (web, ocpp, admin CLI) apply each migration once.
 */
const LOCK_ID = 72_707_369;

export function migrationsDir() {
  return path.resolve(process.cwd(), "prisma", "migrations");
}

function listMigrations(dir: string) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, "migration.sql")),
    )
    .map((entry) => entry.name)
    .sort();
}

export async function applyMigrations(
  databaseUrl: string,
  options: { dir?: string; log?: (line: string) => void } = {},
): Promise<string[]> {
  const dir = options.dir ?? migrationsDir();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const done = await client.query<{ migration_name: string; finished_at: Date | null }>(
      `SELECT migration_name, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const finished = new Set(done.rows.filter((r) => r.finished_at).map((r) => r.migration_name));
    const failed = done.rows.find((r) => !r.finished_at);
    if (failed) {
      throw new Error(
        `migration ${failed.migration_name} failed earlier; fix the database by hand`,
      );
    }
    for (const name of listMigrations(dir)) {
      if (finished.has(name)) continue;
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      const checksum = crypto.createHash("sha256").update(sql).digest("hex");
      const id = crypto.randomUUID();
      await client.query("BEGIN");
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), 1)`,
          [id, checksum, name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${name} failed: ${(error as Error).message}`);
      }
      applied.push(name);
      options.log?.(`applied migration ${name}`);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_ID]).catch(() => {});
    await client.end();
  }
  return applied;
}
