import type { ChildProcess } from "node:child_process";
import {
  AggregatorRegistry,
  type MetricObjectWithValues,
  type MetricValue,
  type MetricValueWithName,
} from "prom-client";

/**
 * Several gateway processes under `npm start` (OCPP_PROCESSES) share one port, so a scrape of
 * `/metrics` reaches whichever process the kernel picks. So that a scraper still needs that one
 * address, the process that takes a scrape asks `npm start` (over the IPC channel it already has)
 * for every process's metrics, and answers them all, each series labelled with its process's name
 * (`process="ocpp2"`), with `chargecloud_process_up{process}` for each process of the group: 1 when
 * it answered, 0 when it did not (down, restarting, or slower than `COLLECT_MS`).
 *
 * Labelled, not summed: a restarted process starts its counters at zero, which Prometheus's
 * `rate()` takes in its stride per series; a sum over the processes would drop at every restart and
 * read as a reset of all. Queries sum over the label: `sum without (process) (rate(…[1m]))`.
 *
 * The messages: the scraped process sends `gather`; `npm start` sends `collect` to every process
 * of the group (the scraped one too), each answers `collected` with its registry's JSON, and
 * `npm start` sends the lot back to the scraped process as `gathered`.
 */
export type ProcessMetrics = {
  name: string;
  /** the process's registry as JSON, or null when it did not answer */
  metrics: Metric[] | null;
};

type Metric = MetricObjectWithValues<MetricValue<string> | MetricValueWithName<string>>;

export type MetricsMessage =
  | { metrics: "gather"; request: number }
  | { metrics: "collect"; request: number }
  | { metrics: "collected"; request: number; json: Metric[] | null }
  | { metrics: "gathered"; request: number; processes: ProcessMetrics[] };

/** How long `npm start` waits for each process's metrics. */
export const COLLECT_MS = 1_000;
/** How long the scraped process waits for the group's (then it answers its own alone). */
const GATHER_MS = 2 * COLLECT_MS + 500;

const isMetricsMessage = (message: unknown): message is MetricsMessage =>
  typeof message === "object" &&
  message !== null &&
  typeof (message as { metrics?: unknown }).metrics === "string" &&
  typeof (message as { request?: unknown }).request === "number";

/**
 * The group's metrics in Prometheus's text format: every process's series with its `process`
 * label, then `chargecloud_process_up`. A metric appears once (one HELP and TYPE) with the series
 * of every process that has it.
 */
export async function groupExposition(processes: ProcessMetrics[]): Promise<string> {
  const labelled = processes.flatMap(({ name, metrics }) =>
    (metrics ?? []).map((metric) => ({
      ...metric,
      // the series differ by their process label, so "sum" keeps each one as it is (the default
      // metrics' own aggregators would average or omit some across processes)
      aggregator: "sum" as const,
      values: metric.values.map((value) => ({
        ...value,
        labels: { ...value.labels, process: name },
      })),
    })),
  );
  const up = {
    name: "chargecloud_process_up",
    help: "Whether each process of the group answered this scrape with its metrics (1) or not (0).",
    type: "gauge",
    aggregator: "sum" as const,
    values: processes.map(({ name, metrics }) => ({
      value: metrics ? 1 : 0,
      labels: { process: name },
    })),
  };
  // prom-client's own merger of registries' JSON (its cluster support)
  return AggregatorRegistry.aggregate([labelled, [up]]).metrics();
}

/** The IPC channel to `npm start`: `process` in a child it started. */
type Channel = {
  on: (event: "message", listener: (message: unknown) => void) => unknown;
  send?: (message: MetricsMessage) => boolean;
  connected: boolean;
};

/** The variable `npm start` names each process of a group by (`ocpp1` … `ocppN`). */
export const PROCESS_NAME_VARIABLE = "CHARGECLOUD_PROCESS_NAME";

/**
 * In a process of the group: answers `npm start`'s `collect` with `own()`, and returns the
 * exposition a scrape of this process answers: the whole group's (`groupExposition`), or, when
 * `npm start` does not answer in time, this process's own under its name `self`.
 */
export function joinMetricsGroup(
  own: () => Promise<Metric[]>,
  self: string,
  channel: Channel = process,
): () => Promise<string> {
  let next = 0;
  const waiting = new Map<number, (processes: ProcessMetrics[]) => void>();
  channel.on("message", (message: unknown) => {
    if (!isMetricsMessage(message)) return;
    if (message.metrics === "collect") {
      const reply = (json: Metric[] | null) => {
        if (channel.connected)
          channel.send?.({ metrics: "collected", request: message.request, json });
      };
      own().then(reply, () => reply(null));
    }
    if (message.metrics === "gathered") waiting.get(message.request)?.(message.processes);
  });
  return async () => {
    const request = ++next;
    const gathered = await new Promise<ProcessMetrics[] | null>((resolve) => {
      if (!channel.connected) return resolve(null);
      const timer = setTimeout(() => {
        waiting.delete(request);
        resolve(null);
      }, GATHER_MS);
      waiting.set(request, (processes) => {
        clearTimeout(timer);
        waiting.delete(request);
        resolve(processes);
      });
      channel.send?.({ metrics: "gather", request });
    });
    return groupExposition(gathered ?? [{ name: self, metrics: await own() }]);
  };
}

/**
 * In `npm start`: answers a group member's `gather` with every member's metrics. `members` gives
 * each process's name and its running child (none while it is restarting).
 */
export function serveMetricsGroup(members: () => { name: string; child?: ChildProcess }[]) {
  let next = 0;
  const collect = (child: ChildProcess | undefined) =>
    new Promise<Metric[] | null>((resolve) => {
      if (!child?.connected) return resolve(null);
      const request = ++next;
      const done = (json: Metric[] | null) => {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(json);
      };
      const onMessage = (message: unknown) => {
        if (
          isMetricsMessage(message) &&
          message.metrics === "collected" &&
          message.request === request
        )
          done(message.json);
      };
      const onExit = () => done(null);
      const timer = setTimeout(() => done(null), COLLECT_MS);
      child.on("message", onMessage);
      child.on("exit", onExit);
      try {
        child.send({ metrics: "collect", request });
      } catch {
        done(null);
      }
    });
  /** Call with each message a member sends. */
  return (from: ChildProcess, message: unknown) => {
    if (!isMetricsMessage(message) || message.metrics !== "gather") return;
    const { request } = message;
    void Promise.all(
      members().map(async ({ name, child }) => ({ name, metrics: await collect(child) })),
    ).then((processes) => {
      if (from.connected) from.send({ metrics: "gathered", request, processes });
    });
  };
}
