/**
 * `npm start`: the whole product on one machine.
 * 1. validate configuration (a bad value stops here with one line);
 * 2. with no DATABASE_URL, start the embedded PostgreSQL under DATA_DIR (kept across restarts);
 * 3. apply migrations;
 * 4. build the web app when its sources changed since the last build;
 * 5. run the web process (Next.js behind scripts/web-server.ts) and the OCPP gateway (`ocpp/main.ts`), print where they are;
 *    either one that dies later is started again (scripts/supervise.ts) while the other keeps
 *    running;
 * 6. on Ctrl-C (or SIGTERM) stop both, then PostgreSQL. PostgreSQL runs in its own session, so the
 *    terminal's Ctrl-C reaches only this process and its children: the gateway still records its
 *    stop and its stations' disconnects before the database goes. If the embedded PostgreSQL
 *    itself dies, everything stops with exit code 1 (see README).
 */
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../server/db/embedded";
import { applyMigrations } from "../server/db/migrate";
import { envOrExit, type Env } from "../server/env";
import { supervise, type Supervised } from "./supervise";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "node_modules", ".bin");
const HASH_FILE = path.join(ROOT, ".next", "source-hash");
const SOURCES = [
  "app",
  "server",
  "components",
  "public",
  "next.config.ts",
  "instrumentation.ts",
  "proxy.ts",
  "package-lock.json",
  "prisma/schema.prisma",
  "postcss.config.mjs",
  "tsconfig.json",
];

const say = (line: string) => process.stderr.write(`${line}\n`);

function sourceHash(): string {
  const hash = crypto.createHash("sha256");
  const walk = (target: string) => {
    const full = path.join(ROOT, target);
    if (!fs.existsSync(full)) return;
    const stat = fs.statSync(full);
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(full).sort()) {
        if (name === "generated" || name === "node_modules" || name.endsWith(".test.ts")) continue;
        walk(path.join(target, name));
      }
    } else {
      hash.update(target).update(fs.readFileSync(full));
    }
  };
  SOURCES.forEach(walk);
  return hash.digest("hex");
}

function buildIfNeeded() {
  const hash = sourceHash();
  const built =
    fs.existsSync(path.join(ROOT, ".next", "BUILD_ID")) &&
    fs.existsSync(HASH_FILE) &&
    fs.readFileSync(HASH_FILE, "utf8") === hash;
  if (built) return;
  say("building the web app (first start, or sources changed)…");
  const result = spawnSync(path.join(BIN, "next"), ["build"], {
    cwd: ROOT,
    stdio: ["ignore", process.stderr, process.stderr],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0)
    throw new Error(`next build failed (exit ${result.status ?? result.signal})`);
  fs.writeFileSync(HASH_FILE, hash);
}

/**
 * The key that encrypts secrets at rest: SECRET_KEY when set (required in production), otherwise
 * one generated once and kept under DATA_DIR, so a laptop install needs no setup.
 */
function secretKey(config: Env): string {
  if (config.secretKey) return config.secretKey;
  const file = path.join(config.dataDir, "secret.key");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, crypto.randomBytes(32).toString("base64"), { mode: 0o600 });
  }
  return fs.readFileSync(file, "utf8").trim();
}

async function waitFor(url: string, child: Supervised, name: string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.deaths() > 0) throw new Error(`${name} exited during start-up`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} did not answer ${url} within 60 s`);
}

async function main() {
  const config = envOrExit();
  let database: EmbeddedDatabase | undefined;
  const children: Supervised[] = [];
  let stopping = false;
  let databaseExited = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping the web and ocpp processes…");
    await Promise.all(children.map((child) => child.stop()));
    if (database?.owned && !databaseExited) {
      say("stopping PostgreSQL…");
      await database
        .stop()
        .catch((error: unknown) => say(`stopping PostgreSQL failed: ${String(error)}`));
    }
    say("stopped");
    process.exit(code);
  };
  // A second Ctrl-C while stopping changes nothing: the children already have their deadline.
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));

  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      say(`starting the embedded PostgreSQL (data in ${path.join(config.dataDir, "postgres")})…`);
      database = await startEmbeddedDatabase({ dataDir: config.dataDir, ownSession: true });
      databaseUrl = database.url;
      say(`PostgreSQL started (pid ${database.pid})`);
      void database.exited.then(({ code, signal }) => {
        databaseExited = true;
        if (stopping) return;
        // Not restarted: whatever killed it (disk full, out of memory, someone) needs a look, and
        // both children hold connections and LISTENs to it. Exit 1 lets a service manager decide.
        say(
          `PostgreSQL stopped unexpectedly (${signal ? `killed by ${signal}` : `exit code ${code}`}); stopping everything`,
        );
        void stop(1);
      });
    }
    await applyMigrations(databaseUrl, { log: say });
    buildIfNeeded();
    const childEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SECRET_KEY: secretKey(config),
      NEXT_TELEMETRY_DISABLED: "1",
    };
    const web = supervise({
      name: "web",
      labelWidth: 4,
      log: say,
      start: () =>
        // Next.js behind a small front that answers what Next cannot (scripts/web-server.ts).
        spawn(process.execPath, ["--import", "tsx", "scripts/web-server.ts"], {
          cwd: ROOT,
          env: { ...childEnv, PORT: String(config.port), NODE_ENV: "production" },
          stdio: ["ignore", "pipe", "pipe"],
        }),
    });
    // Node with tsx's loader rather than the tsx command: one process per gateway, so the pid in
    // the log is the one holding the chargers (a killed tsx wrapper would orphan it).
    const ocpp = supervise({
      name: "ocpp",
      labelWidth: 4,
      log: say,
      start: () =>
        spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "ocpp/main.ts"], {
          cwd: ROOT,
          env: childEnv,
          stdio: ["ignore", "pipe", "pipe"],
        }),
    });
    children.push(web, ocpp);
    await waitFor(`http://127.0.0.1:${config.port}/v1/health`, web, "web");
    await waitFor(`http://127.0.0.1:${config.ocppPort}/health`, ocpp, "ocpp");
    // A process that cannot come up at all fails the start with its own error; one that dies
    // after both answered is started again.
    for (const [child, name] of [
      [web, "web"],
      [ocpp, "ocpp"],
    ] as const) {
      if (child.deaths() > 0) throw new Error(`${name} exited during start-up`);
      child.keepUp();
    }
    console.log(`Console:  ${config.publicBaseUrl}/`);
    console.log(`API:      ${config.publicBaseUrl}/v1`);
    console.log(`OCPP:     ${config.ocppPublicUrl}/ocpp/<station name>`);
    say("running; press Ctrl-C to stop");
  } catch (error) {
    say(`start failed: ${(error as Error).message}`);
    await stop(1);
  }
}

await main();
