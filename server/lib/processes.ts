import fs from "node:fs";

/**
 * What Linux's /proc says about a process: enough for `npm start` to tell a live owner of a lock
 * or a data folder from a dead one whose pid was since given to another program (the start time
 * differs), and to find a process's parent. Undefined when the process is gone (or is a zombie,
 * which has exited and only waits for its parent to collect it).
 */
export type ProcessInfo = {
  pid: number;
  ppid: number;
  /** clock ticks since boot at which it started: with the pid, names one process for good */
  startTime: number;
  /** its command line, one entry per argument */
  args: string[];
};

export function processInfo(pid: number): ProcessInfo | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return fallbackInfo(pid);
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] === "Z" || fields[0] === "X") return undefined;
  let args: string[] = [];
  try {
    args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    /* gone between the two reads, or not ours to read */
  }
  return { pid, ppid: Number(fields[1]), startTime: Number(fields[19]), args };
}

/** Without /proc (not Linux): alive or not, nothing more. */
function fallbackInfo(pid: number): ProcessInfo | undefined {
  if (fs.existsSync("/proc/self/stat")) return undefined; // /proc exists: the process is gone
  try {
    process.kill(pid, 0);
    return { pid, ppid: 0, startTime: 0, args: [] };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
      ? { pid, ppid: 0, startTime: 0, args: [] }
      : undefined;
  }
}

/** Who a lock file names: a pid and that process's start time. */
export type ProcessId = { pid: number; startTime: number };

export function thisProcess(): ProcessId {
  return { pid: process.pid, startTime: processInfo(process.pid)?.startTime ?? 0 };
}

/** Whether the process a lock file names still runs (the same one, not a later holder of its pid). */
export function isRunning(id: ProcessId): boolean {
  const info = processInfo(id.pid);
  return info !== undefined && (id.startTime === 0 || info.startTime === id.startTime);
}
