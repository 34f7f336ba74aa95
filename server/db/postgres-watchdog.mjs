/**
 * Runs the embedded PostgreSQL for the process that started it (its "starter": `npm start`, a test
 * run, the admin CLI) and stops it when the starter goes, however it goes. The starter holds this
 * process's IPC channel; when the starter dies, even by `kill -9`, the kernel closes the channel
 * and this process sees `disconnect`. It then waits (at most OUTLIVE_MS) for the processes the
 * starter named (`npm start`'s web and ocpp processes, which stop by themselves when their own
 * channel to the starter closes) so their last writes land, and stops PostgreSQL with a fast
 * shutdown (SIGINT: sessions end, a checkpoint is written, nothing is lost).
 *
 * Plain JavaScript run by `node` itself: it must start in milliseconds, with no loader.
 * argv[2]: JSON { command, args, uid?, gid?, starter, dataDir } (starter and dataDir are there
 * for `ps` and for a later start that finds this server: server/db/embedded.ts).
 * From the starter: { outlive: [pid, …] }. To the starter: { started: pid }, then
 * { exited: { code, signal } } just before this process exits.
 * SIGINT or SIGTERM: fast shutdown now (the starter's own stop). SIGHUP: ignored.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";

const OUTLIVE_MS = 20_000;
/** A fast shutdown that has not ended by then becomes an immediate one (recovered at next start). */
const FAST_SHUTDOWN_MS = 60_000;

const spec = JSON.parse(process.argv[2] ?? "{}");
const postgres = spawn(spec.command, spec.args, {
  ...(spec.uid === undefined ? {} : { uid: spec.uid, gid: spec.gid }),
  stdio: ["ignore", "inherit", "inherit"],
});

let outlive = [];
let stopping = false;

const tell = (message) => {
  if (process.connected) process.send(message);
};

/** Exits once the last message is handed to the starter (a lost `exited` would hide the cause). */
function reportAndExit(message, code) {
  if (!process.connected) process.exit(code);
  process.send(message, () => process.exit(code));
  setTimeout(() => process.exit(code), 1_000).unref();
}

function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    try {
      process.kill(pid, 0);
      return !fs.existsSync("/proc/self/stat");
    } catch {
      return false;
    }
  }
}

function stopPostgres() {
  if (stopping) return;
  stopping = true;
  postgres.kill("SIGINT");
  setTimeout(() => postgres.kill("SIGQUIT"), FAST_SHUTDOWN_MS).unref();
}

async function starterGone() {
  const deadline = Date.now() + OUTLIVE_MS;
  while (outlive.some(alive) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  stopPostgres();
}

postgres.once("spawn", () => tell({ started: postgres.pid }));
postgres.once("error", (error) => {
  process.stderr.write(`postgres watchdog: could not start PostgreSQL: ${error.message}\n`);
  reportAndExit({ exited: { code: null, signal: null } }, 1);
});
postgres.once("exit", (code, signal) => reportAndExit({ exited: { code, signal } }, 0));
process.on("message", (message) => {
  if (Array.isArray(message?.outlive)) outlive = message.outlive.filter(Number.isInteger);
});
process.on("disconnect", () => void starterGone());
process.on("SIGINT", stopPostgres);
process.on("SIGTERM", stopPostgres);
process.on("SIGHUP", () => {});
