/**
 * One simulator process (bench/charger-sim.ts, bench/storm-sim.ts): its job goes in one argument
 * whose size does not grow with the number of chargers (a job names a range of stations, since a
 * list of 20,000 names is over Linux's 128 KiB limit for one argument: spawn fails with E2BIG), and
 * it answers in JSON lines on stdout.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";

export type Line = Record<string, unknown>;

export function startSimulator(script: string, job: unknown) {
  const child = spawn(
    path.join("node_modules", ".bin", "tsx"),
    ["--conditions=react-server", script, JSON.stringify(job)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  // Writing to one that has exited fails (EPIPE); what it printed already says how it ended.
  child.stdin.on("error", () => undefined);
  const unread: Line[] = [];
  type Waiter = { match: (line: Line) => boolean; resolve: (line: Line) => void };
  const waiting = new Map<Waiter, (error: Error) => void>();
  let gone: Error | undefined;
  readline.createInterface({ input: child.stdout }).on("line", (text) => {
    const line = JSON.parse(text) as Line;
    const waiter = [...waiting.keys()].find((w) => w.match(line));
    if (!waiter) return void unread.push(line);
    waiting.delete(waiter);
    waiter.resolve(line);
  });
  // "close", not "exit": it comes after stdout ended, so every line printed has been read.
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      gone = new Error(`simulator ${script} exited (${code}) before printing the line waited for`);
      for (const reject of waiting.values()) reject(gone);
      waiting.clear();
      resolve(code);
    }),
  );
  return {
    /** the next line that passes `match`; rejects once the process has exited without one */
    next(match: (line: Line) => boolean = () => true): Promise<Line> {
      const i = unread.findIndex(match);
      if (i >= 0) return Promise.resolve(unread.splice(i, 1)[0]!);
      if (gone) return Promise.reject(gone);
      return new Promise<Line>((resolve, reject) => waiting.set({ match, resolve }, reject));
    },
    /** one word on its stdin (`hold`, `stop`) */
    send: (word: string) => child.stdin.write(`${word}\n`),
    /** says `stop` and waits for it to exit */
    stop: async () => {
      child.stdin.end("stop\n");
      await exited;
    },
    exited,
  };
}
