import fs from "node:fs";

/** Linux reports process times in clock ticks; USER_HZ is 100 on every mainstream kernel. */
const TICK_MS = 10;

/**
 * CPU milliseconds used so far by this process and every process below it (the benchmark's
 * workers, its embedded PostgreSQL and the backends that PostgreSQL reaped), from /proc. The
 * difference over a phase is what the phase cost in CPU, which other load on a shared machine
 * changes far less than it changes wall-clock throughput. Linux only; elsewhere null.
 */
export function treeCpuMs(root = process.pid): number | null {
  if (!fs.existsSync("/proc/self/stat")) return null;
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name (which may hold spaces): state, ppid, … utime (14th field),
    // stime, cutime, cstime (reaped children's times).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    stats.set(Number(entry), { ppid: Number(fields[1]), ticks });
  }
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let ticks = 0;
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop()!;
    ticks += stats.get(pid)?.ticks ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return ticks * TICK_MS;
}
