/**
 * Creates and checks migrations offline. Prisma's native migration engine cannot be downloaded
 * here, so this drives Prisma's Wasm schema engine (`@prisma/schema-engine-wasm`) directly through
 * `@prisma/adapter-pg`:
 *
 *   tsx scripts/migrations.ts new <name>   write prisma/migrations/<timestamp>_<name>/migration.sql
 *   tsx scripts/migrations.ts check        exit 0 when migrations match the schema, 2 when not
 *
 * The engine replays the migrations into a throwaway "shadow" database to compare them with the
 * schema; with no DATABASE_URL a throwaway embedded PostgreSQL is started and removed.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import config from "../prisma.config";
import { startEmbeddedDatabase } from "../server/db/embedded";

const ROOT = path.resolve(import.meta.dirname, "..");
const MIGRATIONS = path.join(ROOT, "prisma", "migrations");
const SCHEMA = path.join(ROOT, "prisma", "schema.prisma");
const LOCKFILE =
  '# Written by scripts/migrations.ts; keep it in version control.\nprovider = "postgresql"\n';
const require = createRequire(path.join(ROOT, "package.json"));

type WasmModule = {
  __wbg_set_wasm: (exports: WebAssembly.Exports) => void;
  SchemaEngine: {
    new: (options: unknown, log: (message: string) => void, adapter: unknown) => Promise<Engine>;
  };
};
type Engine = { diff: (params: unknown) => Promise<{ exitCode: number; stdout: string | null }> };

/** Loads the Wasm engine by hand: Node 20 cannot import .wasm modules without a flag. */
async function loadEngineModule(): Promise<WasmModule> {
  // The engine reports Rust panics through this global before it throws.
  (globalThis as Record<string, unknown>).PRISMA_WASM_PANIC_REGISTRY = {
    set_message: (message: string) => console.error(`schema engine panicked: ${message}`),
  };
  const dir = path.dirname(require.resolve("@prisma/schema-engine-wasm"));
  const bindings = (await import(
    pathToFileURL(path.join(dir, "schema_engine_bg.js")).href
  )) as WasmModule & Record<string, unknown>;
  const compiled = await WebAssembly.compile(
    fs.readFileSync(path.join(dir, "schema_engine_bg.wasm")),
  );
  const imports: Record<string, Record<string, unknown>> = {};
  for (const entry of WebAssembly.Module.imports(compiled)) {
    (imports[entry.module] ??= {})[entry.name] = bindings[entry.name];
  }
  const instance = await WebAssembly.instantiate(compiled, imports as WebAssembly.Imports);
  bindings.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
  return bindings;
}

function migrationList() {
  const dirs = fs.existsSync(MIGRATIONS)
    ? fs
        .readdirSync(MIGRATIONS, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
  return {
    baseDir: MIGRATIONS,
    lockfile: { path: "migration_lock.toml", content: LOCKFILE },
    shadowDbInitScript: "",
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: {
        path: "migration.sql",
        content: {
          tag: "ok",
          value: fs.readFileSync(path.join(MIGRATIONS, name, "migration.sql"), "utf8"),
        },
      },
    })),
  };
}

async function withDatabase<T>(run: (url: string) => Promise<T>): Promise<T> {
  const configured = process.env.DATABASE_URL;
  if (configured) return run(configured);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cp-migrations-"));
  const database = await startEmbeddedDatabase({ dataDir });
  try {
    return await run(database.url);
  } finally {
    await database.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

type Adapter = {
  client: pg.Pool;
  performIO: (query: unknown) => Promise<pg.QueryResult<unknown[]>>;
  queryRaw: (query: unknown) => Promise<{ columnTypes: number[]; rows: unknown[][] }>;
  executeScript: (script: string) => Promise<void>;
  onError: (error: unknown) => never;
};

/**
 * adapter-pg cannot deserialize PostgreSQL's internal `"char"` type (OID 18), which the engine
 * reads from the catalog (constraint and index kinds) and expects as a character column: pass such
 * columns through as text and report them as `Character`. It also splits a migration script at
 * every `;`, which cuts a function body (`$$ … ; … $$`) apart: send the script whole instead, as
 * `server/db/migrate.ts` applies it (PostgreSQL's simple query protocol runs it statement by
 * statement).
 */
function charSafe(factory: PrismaPg, characterType: number) {
  return async () => {
    const adapter = (await factory.connect()) as unknown as Adapter;
    adapter.executeScript = async (script) => {
      try {
        await adapter.client.query(script);
      } catch (error) {
        adapter.onError(error);
      }
    };
    const charColumns = new WeakMap<object, number[]>();
    const performIO = adapter.performIO.bind(adapter);
    const queryRaw = adapter.queryRaw.bind(adapter);
    adapter.performIO = async (query) => {
      const result = await performIO(query);
      const columns: number[] = [];
      (result?.fields ?? []).forEach((field, i) => {
        if (field.dataTypeID === 18) {
          field.dataTypeID = 25;
          columns.push(i);
        }
      });
      if (columns.length && result?.rows) charColumns.set(result.rows, columns);
      return result;
    };
    adapter.queryRaw = async (query) => {
      const result = await queryRaw(query);
      for (const i of charColumns.get(result.rows) ?? []) result.columnTypes[i] = characterType;
      return result;
    };
    return adapter;
  };
}

/** Diff from the migrations (replayed in a fresh shadow database) to the schema, as SQL. */
async function diffMigrationsToSchema(url: string, exitCode: boolean) {
  const { bindMigrationAwareSqlAdapterFactory, ColumnTypeEnum } = (await import(
    pathToFileURL(require.resolve("@prisma/driver-adapter-utils")).href
  )) as {
    bindMigrationAwareSqlAdapterFactory: (factory: unknown) => unknown;
    ColumnTypeEnum: { Character: number };
  };
  const shadowName = `shadow_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${shadowName}`);
  const shadowUrl = new URL(url);
  shadowUrl.pathname = `/${shadowName}`;
  const pools = [
    new pg.Pool({ connectionString: url }),
    new pg.Pool({ connectionString: shadowUrl.toString() }),
  ];
  for (const pool of pools) pool.on("error", () => {}); // idle clients are cut when the shadow is dropped
  const main = new PrismaPg(pools[0]!);
  const shadow = new PrismaPg(pools[1]!);
  try {
    const engineModule = await loadEngineModule();
    const schema = fs.readFileSync(SCHEMA, "utf8");
    const adapter = bindMigrationAwareSqlAdapterFactory({
      provider: main.provider,
      adapterName: main.adapterName,
      connect: charSafe(main, ColumnTypeEnum.Character),
      // adapter-pg would connect the shadow to the main database; use our own.
      connectToShadowDb: charSafe(shadow, ColumnTypeEnum.Character),
    });
    const engine = await engineModule.SchemaEngine.new(
      { datamodels: [["schema.prisma", schema]] },
      () => {},
      adapter,
    );
    return await engine.diff({
      from: { tag: "migrations", ...migrationList() },
      to: { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: schema }] },
      script: true,
      exitCode,
      filters: { externalTables: config.tables?.external ?? [], externalEnums: [] },
    });
  } finally {
    await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
    await admin.query(`DROP DATABASE IF EXISTS ${shadowName} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}

const isEmptyScript = (sql: string | null) =>
  !sql || sql.trim() === "" || /^-- This is an empty migration\.\s*$/.test(sql.trim());

async function main() {
  const [command, name] = process.argv.slice(2);
  if (command === "check") {
    const result = await withDatabase((url) => diffMigrationsToSchema(url, true));
    if (isEmptyScript(result.stdout)) {
      console.log("migrations match prisma/schema.prisma");
      return 0;
    }
    console.error(
      "prisma/schema.prisma changed without a migration. Run `npm run db:migrate:new -- <name>`. Missing SQL:\n",
    );
    console.error(result.stdout);
    return 2;
  }
  if (command === "new" && name && /^[a-z0-9_]+$/.test(name)) {
    const result = await withDatabase((url) => diffMigrationsToSchema(url, false));
    if (isEmptyScript(result.stdout)) {
      console.log("no schema changes: no migration written");
      return 0;
    }
    const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
    const dir = path.join(MIGRATIONS, `${stamp}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "migration.sql"), result.stdout!);
    const lock = path.join(MIGRATIONS, "migration_lock.toml");
    if (!fs.existsSync(lock)) fs.writeFileSync(lock, LOCKFILE);
    console.log(`wrote ${path.relative(ROOT, dir)}/migration.sql`);
    return 0;
  }
  console.error("usage: tsx scripts/migrations.ts new <name in snake_case> | check");
  return 64;
}

process.exit(await main());
