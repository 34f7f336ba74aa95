/**
 * Many simulated chargers held open across several simulator processes (bench/charger-sim.ts):
 * one process holds at most `perProcess` sockets, so none nears its open-file limit, and no one
 * event loop's heartbeats become the figure being measured.
 */
import { spawn, type ChildProcess } from "node:child_process";
import readline from "node:readline";

export type FleetSpec = {
  /** the gateway each range connects to; chargers are split evenly over them, in order */
  urls: string[];
  prefix: string;
  first: number;
  count: number;
  password: string;
  /** new connections per second, over the whole fleet */
  ratePerSecond: number;
  heartbeatMs: number;
  perProcess?: number;
};

export type Ready = {
  connected: number;
  failed: number;
  /** handshakes refused for load (429, 503) and tried again */
  retries: number;
  failures: Record<string, number>;
};
export type Done = {
  dropped: number;
  heartbeats: number;
  heartbeatErrors: number;
  latencies: number[];
  /** [charger name, action] for every call a charger received */
  received: [string, string][];
};

type Line = Record<string, unknown>;

/** One process: its range, the gateway it connects to, and its ready and done lines. */
function simulator(job: Record<string, unknown>) {
  const child: ChildProcess = spawn(
    "node_modules/.bin/tsx",
    ["--conditions=react-server", "bench/charger-sim.ts", JSON.stringify(job)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let ready!: (line: Line) => void;
  let done!: (line: Line) => void;
  const readyLine = new Promise<Line>((r) => (ready = r));
  const doneLine = new Promise<Line>((r) => (done = r));
  readline.createInterface({ input: child.stdout! }).on("line", (text) => {
    const line = JSON.parse(text) as Line;
    if (line.ready) ready(line);
    if (line.done) done(line);
  });
  child.on("exit", (code) => {
    const failure = { error: `simulator exited (${code})` };
    ready(failure);
    done(failure);
  });
  return {
    child,
    job,
    readyLine,
    doneLine,
    send: (word: string) => child.stdin!.write(`${word}\n`),
  };
}

/**
 * Starts the fleet; `ready` settles when every charger has connected or failed. Then `hold()`
 * starts the heartbeats and `stop()` ends them and returns every process's figures, merged, with
 * the gateway URL each charger was connected to.
 */
export function startFleet(spec: FleetSpec) {
  const perProcess = spec.perProcess ?? 5000;
  const perUrl = Math.ceil(spec.count / spec.urls.length);
  const processes: ReturnType<typeof simulator>[] = [];
  for (let u = 0; u < spec.urls.length; u++) {
    const urlFirst = spec.first + u * perUrl;
    const urlCount = Math.min(perUrl, spec.first + spec.count - urlFirst);
    const parts = Math.ceil(urlCount / perProcess);
    for (let p = 0; p < parts; p++) {
      const first = urlFirst + p * perProcess;
      const count = Math.min(perProcess, urlFirst + urlCount - first);
      processes.push(
        simulator({
          kind: "connect",
          url: spec.urls[u],
          prefix: spec.prefix,
          first,
          count,
          password: spec.password,
          ratePerSecond: (spec.ratePerSecond * count) / spec.count,
          heartbeatMs: spec.heartbeatMs,
        }),
      );
    }
  }
  const ready = Promise.all(processes.map((p) => p.readyLine)).then((lines) => {
    const failures: Record<string, number> = {};
    for (const line of lines) {
      if (line.error) throw new Error(JSON.stringify(line.error));
      for (const [reason, n] of Object.entries(line.failures as Record<string, number>))
        failures[reason] = (failures[reason] ?? 0) + n;
    }
    const sum = (key: string) => lines.reduce((a, l) => a + Number(l[key]), 0);
    return {
      connected: sum("connected"),
      failed: sum("failed"),
      retries: sum("retries"),
      failures,
    } satisfies Ready;
  });
  return {
    processes: processes.length,
    ready,
    hold: () => processes.forEach((p) => p.send("hold")),
    stop: async () => {
      processes.forEach((p) => p.send("stop"));
      const lines = await Promise.all(processes.map((p) => p.doneLine));
      const merged: Done & { byUrl: Map<string, string> } = {
        dropped: 0,
        heartbeats: 0,
        heartbeatErrors: 0,
        latencies: [],
        received: [],
        byUrl: new Map(),
      };
      lines.forEach((line, i) => {
        if (line.error) throw new Error(JSON.stringify(line.error));
        const d = line as unknown as Done;
        merged.dropped += d.dropped;
        merged.heartbeats += d.heartbeats;
        merged.heartbeatErrors += d.heartbeatErrors;
        for (const ms of d.latencies) merged.latencies.push(ms);
        for (const r of d.received) merged.received.push(r);
        const { prefix, first, count, url } = processes[i]!.job as {
          prefix: string;
          first: number;
          count: number;
          url: string;
        };
        for (let n = first; n < first + count; n++) merged.byUrl.set(`${prefix}${n}`, url);
      });
      merged.latencies.sort((a, b) => a - b);
      await Promise.all(
        processes.map(
          (p) => new Promise((r) => (p.child.exitCode !== null ? r(0) : p.child.on("exit", r))),
        ),
      );
      return merged;
    },
  };
}
