import type { ChildProcess } from "node:child_process";

/**
 * Keeps one child process up for `npm start`: a child that dies is started again after a delay
 * that doubles with each quick failure (1 s, 2 s, 4 s … at most 30 s) and starts over at 1 s once a
 * run has lasted `resetAfterMs`. Each start and death is logged with the child's pid, so a person
 * can find (and test with) the process.
 */
export type Backoff = { initialMs: number; maxMs: number; resetAfterMs: number };

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

/** The wait before the next start after `failures` quick failures in a row (0 = the first). */
export function restartDelay(failures: number, backoff: Backoff = DEFAULT_BACKOFF): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** failures);
}

export type Supervised = {
  /** the process currently running, if any */
  current: () => ChildProcess | undefined;
  /** how many times a process died without being asked to stop */
  deaths: () => number;
  /**
   * from now on, start it again whenever it dies; until then (start-up) a death is only counted,
   * so a process that cannot come up at all fails the start with its own error
   */
  keepUp: () => void;
  /** stops keeping it up; SIGTERM, then SIGKILL after `graceMs`; resolves when its pipes close */
  stop: () => Promise<void>;
};

export type SuperviseOptions = {
  name: string;
  /** starts one process with stdout and stderr piped */
  start: () => ChildProcess;
  /** one line of the supervisor's own or of the child's output (prefixed with the name) */
  log: (line: string) => void;
  /** width the name is padded to in front of the child's lines */
  labelWidth?: number;
  /** called with each process started (the first and every restart) */
  onStart?: (child: ChildProcess) => void;
  backoff?: Backoff;
  graceMs?: number;
};

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

export function supervise({
  name,
  start,
  log,
  labelWidth = name.length,
  onStart,
  backoff = DEFAULT_BACKOFF,
  graceMs = 10_000,
}: SuperviseOptions): Supervised {
  const label = name.padEnd(labelWidth);
  let child: ChildProcess | undefined;
  let closed: Promise<void> = Promise.resolve();
  let stopping = false;
  let keepingUp = false;
  let failures = 0;
  let deaths = 0;
  let pending: NodeJS.Timeout | undefined;

  const launch = () => {
    pending = undefined;
    const startedAt = Date.now();
    const proc = start();
    child = proc;
    // "close", not "exit": a process's last lines are still in its pipes when it exits.
    closed = new Promise((resolve) => proc.once("close", () => resolve()));
    for (const stream of [proc.stdout, proc.stderr]) {
      let buffer = "";
      stream?.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split("\n");
        buffer = lines.pop() ?? "";
        for (const line of lines) log(`${label} | ${line}`);
      });
    }
    proc.once("error", (error) => log(`${name} could not be started: ${error.message}`));
    proc.once("exit", (code, signal) => {
      if (child === proc) child = undefined;
      if (stopping) return;
      deaths += 1;
      const how = signal ? `killed by ${signal}` : `exit code ${code}`;
      if (!keepingUp) return log(`${name} (pid ${proc.pid}) exited during start-up (${how})`);
      const uptime = Date.now() - startedAt;
      if (uptime >= backoff.resetAfterMs) failures = 0;
      const delay = restartDelay(failures, backoff);
      failures += 1;
      log(
        `${name} (pid ${proc.pid}) stopped unexpectedly (${how}) after ${seconds(uptime)}; ` +
          `restarting in ${seconds(delay)} (restart ${deaths})`,
      );
      pending = setTimeout(launch, delay);
    });
    if (proc.pid !== undefined) log(`${name} started (pid ${proc.pid})`);
    onStart?.(proc);
  };
  launch();

  return {
    current: () => child,
    deaths: () => deaths,
    keepUp: () => {
      keepingUp = true;
    },
    stop: async () => {
      stopping = true;
      if (pending) clearTimeout(pending);
      const proc = child;
      if (!proc) return closed;
      proc.kill("SIGTERM");
      const kill = setTimeout(() => {
        log(`${name} (pid ${proc.pid}) did not stop within ${seconds(graceMs)}; killing it`);
        proc.kill("SIGKILL");
      }, graceMs);
      // A grandchild that inherited the pipes could hold them open: do not wait for it forever.
      let giveUp: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise((r) => (giveUp = setTimeout(r, graceMs + 5_000)))]);
      clearTimeout(kill);
      clearTimeout(giveUp);
    },
  };
}
