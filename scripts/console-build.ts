/**
 * The console's production build (`next build` into .next) for `npm start`. It is built when its
 * sources changed since the last build (their hash is kept in .next/source-hash), and never by two
 * starts at once: several `npm start` can share one checkout (each with its own DATA_DIR and ports:
 * the end-to-end tests do), so
 *  - a start holds `.next-run/build.lock` while it checks and builds; another one waits for it,
 *    then finds the build done (Next.js's own lock made the second one fail);
 *  - a start that serves the build says so in `.next-run/serving-<pid>.json`; a start whose sources
 *    differ from that build refuses to build over it (that would replace the files a running
 *    console serves) and says which process to stop.
 * A start killed in the middle of a build leaves no source hash, so the next start builds again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isRunning, thisProcess } from "../server/lib/processes";
import { claimLock, type LockHolder } from "./lock-file";

const ROOT = path.resolve(import.meta.dirname, "..");
const HASH_FILE = path.join(ROOT, ".next", "source-hash");
const RUN_DIR = path.join(ROOT, ".next-run");
const BUILD_LOCK = path.join(RUN_DIR, "build.lock");
const NEXT_CLI = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
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

export function sourceHash(): string {
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

function isBuilt(hash: string) {
  return (
    fs.existsSync(path.join(ROOT, ".next", "BUILD_ID")) &&
    fs.existsSync(HASH_FILE) &&
    fs.readFileSync(HASH_FILE, "utf8") === hash
  );
}

/** Is the console's build there and current? (Another start may be building it: see build().) */
export const consoleBuilt = () => isBuilt(sourceHash());

/** Other starts serving the build in .next now. */
function otherServers(): LockHolder[] {
  if (!fs.existsSync(RUN_DIR)) return [];
  return fs
    .readdirSync(RUN_DIR)
    .filter((name) => /^serving-\d+\.json$/.test(name))
    .flatMap((name) => {
      const file = path.join(RUN_DIR, name);
      try {
        const holder = JSON.parse(fs.readFileSync(file, "utf8")) as LockHolder;
        if (holder.pid !== process.pid && isRunning(holder)) return [holder];
        if (holder.pid !== process.pid) fs.rmSync(file, { force: true }); // its start is gone
      } catch {
        /* being written or removed */
      }
      return [];
    });
}

function markServing(details: Record<string, unknown>) {
  const file = path.join(RUN_DIR, `serving-${process.pid}.json`);
  fs.mkdirSync(RUN_DIR, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...details, ...thisProcess() }));
  process.once("exit", () => fs.rmSync(file, { force: true }));
}

export type ConsoleBuild = {
  /** settles when the build in .next is current (built here or by another start) */
  done: Promise<void>;
  /** stops a build in progress (the start is stopping) */
  cancel: () => void;
};

/**
 * Makes sure .next holds a current build, building it if needed (its output goes to `log`, each
 * line prefixed with "build | "), and marks this start as serving it. `about` is what another
 * start is told about this one (its console's address).
 */
export function buildConsole(options: {
  log: (line: string) => void;
  about: Record<string, unknown>;
}): ConsoleBuild {
  let child: ChildProcess | undefined;
  let cancelled = false;
  const done = (async () => {
    let waitingFor: number | undefined;
    for (;;) {
      if (cancelled) throw new Error("stopped");
      const claim = claimLock(BUILD_LOCK, options.about);
      if ("heldBy" in claim) {
        if (waitingFor !== claim.heldBy.pid) {
          waitingFor = claim.heldBy.pid;
          options.log(`waiting for the console build of npm start (pid ${waitingFor})…`);
        }
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      try {
        const hash = sourceHash();
        if (!isBuilt(hash)) {
          const serving = otherServers();
          if (serving.length > 0) {
            const list = serving
              .map(
                (s) =>
                  `pid ${s.pid}${typeof s.publicBaseUrl === "string" ? ` at ${s.publicBaseUrl}` : ""}`,
              )
              .join(", ");
            throw new Error(
              `the console's sources changed since the build that another npm start serves (${list}); building now would replace the files it serves. Stop it first, then start again`,
            );
          }
          options.log("building the console (first start, or its sources changed)…");
          fs.rmSync(HASH_FILE, { force: true });
          await new Promise<void>((resolve, reject) => {
            child = spawn(process.execPath, [NEXT_CLI, "build"], {
              cwd: ROOT,
              stdio: ["ignore", "pipe", "pipe"],
              env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
            });
            for (const stream of [child.stdout, child.stderr]) {
              let buffer = "";
              stream?.on("data", (chunk: Buffer) => {
                const lines = (buffer + chunk.toString()).split("\n");
                buffer = lines.pop() ?? "";
                for (const line of lines) if (line.trim()) options.log(`build | ${line}`);
              });
            }
            child.once("error", reject);
            child.once("close", (code, signal) =>
              code === 0
                ? resolve()
                : reject(new Error(`next build failed (${signal ?? `exit code ${code}`})`)),
            );
          });
          if (cancelled) throw new Error("stopped");
          fs.writeFileSync(HASH_FILE, hash);
        }
        markServing(options.about);
        return;
      } finally {
        claim.release();
      }
    }
  })();
  return {
    done,
    cancel: () => {
      cancelled = true;
      child?.kill("SIGTERM");
    },
  };
}
