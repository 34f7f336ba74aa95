/**
 * Many simulated chargers held open across several simulator processes (bench/charger-sim.ts):
 * one process holds at most `perProcess` sockets, so none nears its open-file limit, and no one
 * event loop's heartbeats become the figure being measured.
 */
import type { ConnectJob } from "./charger-sim";
import { startSimulator } from "./simulator";

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

/**
 * Starts the fleet; `ready` settles when every charger has connected or failed. Then `hold()`
 * starts the heartbeats and `stop()` ends them and returns every process's figures, merged, with
 * the gateway URL each charger was connected to.
 */
export function startFleet(spec: FleetSpec) {
  const perProcess = spec.perProcess ?? 5000;
  const perUrl = Math.ceil(spec.count / spec.urls.length);
  const processes: { job: ConnectJob; sim: ReturnType<typeof startSimulator> }[] = [];
  for (let u = 0; u < spec.urls.length; u++) {
    const urlFirst = spec.first + u * perUrl;
    const urlCount = Math.min(perUrl, spec.first + spec.count - urlFirst);
    const parts = Math.ceil(urlCount / perProcess);
    for (let p = 0; p < parts; p++) {
      const first = urlFirst + p * perProcess;
      const count = Math.min(perProcess, urlFirst + urlCount - first);
      const job: ConnectJob = {
        kind: "connect",
        url: spec.urls[u]!,
        prefix: spec.prefix,
        first,
        count,
        password: spec.password,
        ratePerSecond: (spec.ratePerSecond * count) / spec.count,
        heartbeatMs: spec.heartbeatMs,
      };
      processes.push({ job, sim: startSimulator("bench/charger-sim.ts", job) });
    }
  }
  const ready = Promise.all(processes.map((p) => p.sim.next((l) => !!l.ready))).then((lines) => {
    const failures: Record<string, number> = {};
    for (const line of lines) {
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
    hold: () => processes.forEach((p) => p.sim.send("hold")),
    stop: async () => {
      processes.forEach((p) => p.sim.send("stop"));
      const lines = await Promise.all(processes.map((p) => p.sim.next((l) => !!l.done)));
      const merged: Done & { byUrl: Map<string, string> } = {
        dropped: 0,
        heartbeats: 0,
        heartbeatErrors: 0,
        latencies: [],
        received: [],
        byUrl: new Map(),
      };
      lines.forEach((line, i) => {
        const d = line as unknown as Done;
        merged.dropped += d.dropped;
        merged.heartbeats += d.heartbeats;
        merged.heartbeatErrors += d.heartbeatErrors;
        for (const ms of d.latencies) merged.latencies.push(ms);
        for (const r of d.received) merged.received.push(r);
        const { prefix, first, count, url } = processes[i]!.job;
        for (let n = first; n < first + count; n++) merged.byUrl.set(`${prefix}${n}`, url);
      });
      merged.latencies.sort((a, b) => a - b);
      await Promise.all(processes.map((p) => p.sim.exited));
      return merged;
    },
  };
}
