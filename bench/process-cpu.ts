import fs from "node:fs";

/** Linux reports process times in clock ticks; USER_HZ is 100 on every mainstream kernel. */
const TICK_MS = 10;

type ProcessStat = { ppid: number; ticks: number };

/**
 * One process's parent and CPU ticks (own user and system time plus its reaped children's), from
 * /proc; null once it has exited.
 */
function statOf(pid: number | string): ProcessStat | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces): state, ppid, … utime (14th field),
  // stime, cutime, cstime (reaped children's times).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return { ppid: Number(fields[1]), ticks };
}

/** Every process's `statOf`; null where /proc is missing (not Linux). */
function readStats(): Map<number, ProcessStat> | null {
  if (!fs.existsSync("/proc/self/stat")) return null;
  const stats = new Map<number, ProcessStat>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(entry);
    if (stat) stats.set(Number(entry), stat); // else it exited meanwhile
  }
  return stats;
}

/** CPU milliseconds one process has used (its reaped children's included); null once it exited. */
export function processCpuMs(pid: number): number | null {
  const stat = statOf(pid);
  return stat && stat.ticks * TICK_MS;
}

/** The process `root` and every process below it. */
function descendants(stats: Map<number, ProcessStat>, root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop()!;
    if (stats.has(pid)) found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/**
 * CPU milliseconds used so far by this process and every process below it (the benchmark's
 * workers, its embedded PostgreSQL and the backends that PostgreSQL reaped), from /proc. The
 * difference over a phase is what the phase cost in CPU, which other load on a shared machine
 * changes far less than it changes wall-clock throughput. Linux only; elsewhere null.
 */
export function treeCpuMs(root = process.pid): number | null {
  const stats = readStats();
  if (!stats) return null;
  return descendants(stats, root).reduce((sum, pid) => sum + stats.get(pid)!.ticks, 0) * TICK_MS;
}

/**
 * The same CPU milliseconds, split by a name `classify` gives each process below `root` (from its
 * command line), so a phase's cost can be told apart per process: the web process, PostgreSQL,
 * the load generator. A process that exited during a phase is counted in its parent's reaped
 * time, that is under its parent's name. Linux only; elsewhere null.
 */
export function cpuMsByProcess(
  classify: (pid: number, commandLine: string) => string,
  root = process.pid,
): Record<string, number> | null {
  const stats = readStats();
  if (!stats) return null;
  const split: Record<string, number> = {};
  for (const pid of descendants(stats, root)) {
    let commandLine = "";
    try {
      commandLine = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue;
    }
    const name = classify(pid, commandLine);
    split[name] = (split[name] ?? 0) + stats.get(pid)!.ticks * TICK_MS;
  }
  return split;
}
