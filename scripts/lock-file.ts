import fs from "node:fs";
import path from "node:path";
import { isRunning, thisProcess, type ProcessId } from "../server/lib/processes";

/** Who holds a lock file: the process (pid and start time) and what it chose to say about itself. */
export type LockHolder = ProcessId & Record<string, unknown>;

export type Claim =
  | {
      release: () => void;
      /** the holder before, gone without releasing it */ tookOverFrom?: LockHolder;
    }
  | { heldBy: LockHolder };

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(fs.readFileSync(file, "utf8")) as LockHolder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes `file` for this process unless a running process holds it, in which case it says who. The
 * file is created whole (written aside, then hard-linked into place, which fails if it exists), so
 * a reader never sees it half-written. A file left by a process that no longer runs (a `kill -9`)
 * is taken over. Released by `release()` or when this process exits; after a `kill -9` the next
 * claim finds its holder gone.
 */
export function claimLock(file: string, details: Record<string, unknown> = {}): Claim {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const me = thisProcess();
  const aside = `${file}.${me.pid}`;
  fs.writeFileSync(aside, JSON.stringify({ ...details, ...me }));
  let stale: LockHolder | undefined;
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        fs.linkSync(aside, file);
        const release = () => {
          if (readHolder(file)?.pid === me.pid) fs.rmSync(file, { force: true });
          process.removeListener("exit", release);
        };
        process.once("exit", release);
        return stale ? { release, tookOverFrom: stale } : { release };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = readHolder(file);
      if (holder && isRunning(holder)) return { heldBy: holder };
      // Its holder is gone. (Two claims that find the same stale file at the same instant could
      // both take it; what each lock guards has its own last line of defence, see the callers.)
      stale = holder;
      fs.rmSync(file, { force: true });
    }
    throw new Error(`could not take ${file}`);
  } finally {
    fs.rmSync(aside, { force: true });
  }
}
