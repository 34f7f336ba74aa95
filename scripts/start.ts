/**
 * `npm start`: the whole product on one machine.
 * 1. validate configuration (a bad value stops here with one line);
 * 2. with no DATABASE_URL, claim the data folder (DATA_DIR): one `npm start` per data folder; a
 *    second one says which process holds it and exits 1. Both ports must be free too;
 * 3. with no DATABASE_URL, start the embedded PostgreSQL under DATA_DIR (kept across restarts),
 *    under a watchdog that stops it if this process dies, even by `kill -9` (a server an earlier
 *    start left running is stopped first: server/db/embedded.ts);
 * 4. apply migrations;
 * 5. run the web process (scripts/web-server.ts) and the OCPP gateway (`ocpp/main.ts`;
 *    OCPP_PROCESSES of them on one port: scripts/gateways.ts), and build the console meanwhile
 *    when its sources changed since the last build (scripts/console-build.ts):
 *    /v1 and the gateway answer within seconds, the console's pages answer a "starting" page until
 *    its build is done. Any process that dies later is started again (scripts/supervise.ts)
 *    while the others keep running; all stop by themselves if this process dies;
 * 6. on Ctrl-C (or SIGTERM, SIGHUP, or the end of the `npm` process that ran this one) stop both,
 *    then PostgreSQL. PostgreSQL runs in its own session, so the terminal's Ctrl-C reaches only
 *    this process and its children: the gateway still records its stop and its stations'
 *    disconnects before the database goes. If the embedded PostgreSQL itself dies, everything
 *    stops with exit code 1 (see README).
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../server/db/embedded";
import { applyMigrations } from "../server/db/migrate";
import { envOrExit, type Env } from "../server/env";
import { isRunning, processInfo, type ProcessId } from "../server/lib/processes";
import { buildConsole, consoleBuilt, type ConsoleBuild } from "./console-build";
import { claimLock } from "./lock-file";
import { superviseGateways } from "./gateways";
import { supervise, type Supervised } from "./supervise";

const ROOT = path.resolve(import.meta.dirname, "..");

const say = (line: string) => process.stderr.write(`${line}\n`);

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

/**
 * One `npm start` per data folder: two would run two PostgreSQL servers (or two first-time
 * initialisations) on the same files. The claim is `<DATA_DIR>/npm-start.lock`; one left by a
 * killed start is taken over. (Should two starts ever take over the same stale claim at the same
 * instant, PostgreSQL's own postmaster.pid lets only one server run on the folder.)
 */
function claimDataFolder(config: Env) {
  const claim = claimLock(path.join(config.dataDir, "npm-start.lock"), {
    port: config.port,
    ocppPort: config.ocppPort,
    publicBaseUrl: config.publicBaseUrl,
  });
  if ("heldBy" in claim) {
    const other = claim.heldBy;
    throw new Error(
      `another npm start (pid ${other.pid}) is running on the data folder ${path.resolve(config.dataDir)}` +
        ` (console ${String(other.publicBaseUrl)}, OCPP port ${String(other.ocppPort)}).` +
        ` Stop it first (Ctrl-C in its terminal, or kill ${other.pid}), or give this one its own DATA_DIR, PORT and OCPP_PORT.`,
    );
  }
  return claim;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    // Bound as the web and ocpp processes bind (every address), so what fails here would fail there.
    const server = net.createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" ? resolve(false) : reject(error),
    );
    server.listen({ port }, () => server.close(() => resolve(true)));
  });
}

/**
 * Refuses a port another program listens on. Right after a start on this data folder was killed,
 * its web and ocpp processes may still be stopping (they stop by themselves within 10 s): `waitMs`.
 */
async function assertPortFree(port: number, variable: string, waitMs: number) {
  const deadline = Date.now() + waitMs;
  while (!(await portFree(port))) {
    if (Date.now() >= deadline)
      throw new Error(
        `port ${port} (${variable}) is in use: another npm start or another program listens there. Stop it, or set ${variable} to a free port.`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The processes between the `npm` that ran `npm start` and this one (npm and its shell), when npm
 * ran it: if one of them ends, even by `kill -9`, this start stops as for a Ctrl-C, so no product
 * runs on without the command that started it.
 */
function launchers(): ProcessId[] {
  if (!process.env.npm_lifecycle_event) return [];
  const chain: ProcessId[] = [];
  let info = processInfo(process.ppid);
  while (info && chain.length < 4) {
    chain.push({ pid: info.pid, startTime: info.startTime });
    if (/^npm(\s|$)/.test(info.args[0] ?? "") || info.args.some((a) => a.endsWith("npm-cli.js")))
      return chain;
    info = processInfo(info.ppid);
  }
  return [];
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
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not answer ${url} within 60 s`);
}

async function main() {
  const config = envOrExit();
  say(`npm start (pid ${process.pid}) on Node.js ${process.version}`);
  let database: EmbeddedDatabase | undefined;
  let build: ConsoleBuild | undefined;
  const children: Supervised[] = [];
  const pids = new Map<string, number>();
  let stopping = false;
  let databaseExited = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    build?.cancel();
    if (children.length > 0) {
      say("stopping the web and ocpp processes…");
      await Promise.all(children.map((child) => child.stop()));
    }
    if (database?.owned && !databaseExited) {
      say("stopping PostgreSQL…");
      await database
        .stop()
        .catch((error: unknown) => say(`stopping PostgreSQL failed: ${String(error)}`));
    }
    if (children.length > 0 || database) say("stopped");
    process.exit(code);
  };
  // A second Ctrl-C while stopping changes nothing: the children already have their deadline.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
    process.on(signal, () => void stop(0));
  const watched = launchers();
  setInterval(() => {
    const gone = watched.find((launcher) => !isRunning(launcher));
    if (!gone || stopping) return;
    say(`the process that ran npm start (pid ${gone.pid}) is gone; stopping`);
    void stop(1);
  }, 500).unref();

  try {
    const claim = config.databaseUrl ? undefined : claimDataFolder(config);
    if (claim?.tookOverFrom)
      say(
        `the previous npm start on this data folder (pid ${claim.tookOverFrom.pid}) ended without stopping; taking over`,
      );
    const portWait = claim?.tookOverFrom ? 15_000 : 0;
    await assertPortFree(config.port, "PORT", portWait);
    await assertPortFree(config.ocppPort, "OCPP_PORT", portWait);
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      say(`starting the embedded PostgreSQL (data in ${path.join(config.dataDir, "postgres")})…`);
      database = await startEmbeddedDatabase({
        dataDir: config.dataDir,
        ownSession: true,
        notice: say,
        settings: config.embeddedPostgresSettings,
      });
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
    const childEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SECRET_KEY: secretKey(config),
      NEXT_TELEMETRY_DISABLED: "1",
    };
    let built = consoleBuilt();
    const tellConsoleBuilt = (child: ChildProcess | undefined) => {
      if (child?.connected) child.send({ console: "built" });
    };
    let consoleReady: () => void = () => {};
    const consoleAnswers = new Promise<void>((resolve) => (consoleReady = resolve));
    // Each child gets an IPC channel: its closing (this process's end, however it ends) is the
    // child's signal to stop; and PostgreSQL's watchdog waits for the children before it stops.
    const started = (name: string) => (child: ChildProcess) => {
      if (child.pid) pids.set(name, child.pid);
      database?.outlive([...pids.values()]);
    };
    const web = supervise({
      name: "web",
      labelWidth: 5,
      log: say,
      onStart: (child) => {
        started("web")(child);
        child.on("message", (message: { web?: string; console?: string }) => {
          if (message.web === "listening" && message.console === "ready") consoleReady();
          // Built while this process was starting: tell it now that it listens.
          if (message.web === "listening" && message.console === "building" && built)
            tellConsoleBuilt(child);
          if (message.web === "console-ready") consoleReady();
        });
      },
      start: () =>
        // Next.js behind a small front that answers what Next cannot (scripts/web-server.ts).
        spawn(process.execPath, ["--import", "tsx", "scripts/web-server.ts"], {
          cwd: ROOT,
          env: {
            ...childEnv,
            PORT: String(config.port),
            NODE_ENV: "production",
            CONSOLE_BUILT: built ? "1" : "0",
          },
          stdio: ["ignore", "pipe", "pipe", "ipc"],
        }),
    });
    // OCPP_PROCESSES gateway processes on the one port, each kept up on its own
    // (scripts/gateways.ts).
    const gateways = superviseGateways({
      count: config.ocppProcesses,
      env: childEnv,
      log: say,
      labelWidth: 5,
      onStart: (name, child) => started(name)(child),
    });
    children.push(web, ...gateways.processes.map((p) => p.supervised));
    build = buildConsole({
      log: say,
      about: { publicBaseUrl: config.publicBaseUrl, dataDir: path.resolve(config.dataDir) },
    });
    // A failed build stops the start (below); until then it must not count as unhandled.
    build.done.catch(() => {});
    await waitFor(`http://127.0.0.1:${config.port}/v1/health`, web, "web");
    await gateways.waitListening();
    // A process that cannot come up at all fails the start with its own error; one that dies
    // after all answered is started again.
    if (web.deaths() > 0) throw new Error("web exited during start-up");
    web.keepUp();
    gateways.keepUp();
    console.log(`API:      ${config.publicBaseUrl}/v1`);
    console.log(`OCPP:     ${config.ocppPublicUrl}/ocpp/<station name>`);
    if (!built)
      say(
        `the console is being built (a minute or two); until then ${config.publicBaseUrl}/ answers a page that says so`,
      );
    await build.done;
    if (!built) {
      built = true;
      tellConsoleBuilt(web.current());
    }
    await consoleAnswers;
    console.log(`Console:  ${config.publicBaseUrl}/`);
    say("running; press Ctrl-C to stop");
  } catch (error) {
    if (stopping) return;
    say(`start failed: ${(error as Error).message}`);
    await stop(1);
  }
}

await main();
