import {
  AggregatorRegistry,
  type MetricObjectWithValues,
  type MetricValue,
  type MetricValueWithName,
} from "prom-client";
import { joinGroup, type Channel, type Member } from "../process-group";

/**
 * Several gateway processes under `npm start` (OCPP_PROCESSES) share one port, so a scrape of
 * `/metrics` reaches whichever process the kernel picks. So that a scraper still needs that one
 * address, the process that takes a scrape gathers every process's metrics through `npm start`
 * (`joinGroup`, server/process-group.ts), and answers them all, each series labelled with its
 * process's name (`process="ocpp2"`), with `chargecloud_process_up{process}` for each process of
 * the group: 1 when it answered, 0 when it did not (down, restarting, or slower than a second).
 *
 * Labelled, not summed: a restarted process starts its counters at zero, which Prometheus's
 * `rate()` takes in its stride per series; a sum over the processes would drop at every restart and
 * read as a reset of all. Queries sum over the label: `sum without (process) (rate(…[1m]))`.
 */
type Metric = MetricObjectWithValues<MetricValue<string> | MetricValueWithName<string>>;

/** One process's registry as JSON (`value`), or `null` when it did not answer. */
export type ProcessMetrics = Member<Metric[]>;

/**
 * The group's metrics in Prometheus's text format: every process's series with its `process`
 * label, then `chargecloud_process_up`. A metric appears once (one HELP and TYPE) with the series
 * of every process that has it.
 */
export async function groupExposition(processes: ProcessMetrics[]): Promise<string> {
  const labelled = processes.flatMap(({ name, value }) =>
    (value ?? []).map((metric) => ({
      ...metric,
      // the series differ by their process label, so "sum" keeps each one as it is (the default
      // metrics' own aggregators would average or omit some across processes)
      aggregator: "sum" as const,
      values: metric.values.map((sample) => ({
        ...sample,
        labels: { ...sample.labels, process: name },
      })),
    })),
  );
  const up = {
    name: "chargecloud_process_up",
    help: "Whether each process of the group answered this scrape with its metrics (1) or not (0).",
    type: "gauge",
    aggregator: "sum" as const,
    values: processes.map(({ name, value }) => ({
      value: value ? 1 : 0,
      labels: { process: name },
    })),
  };
  // prom-client's own merger of registries' JSON (its cluster support)
  return AggregatorRegistry.aggregate([labelled, [up]]).metrics();
}

/**
 * In a process of the group: answers `npm start`'s collection with `own()`, and returns the
 * exposition a scrape of this process answers: the whole group's (`groupExposition`), or, when
 * `npm start` does not answer in time, this process's own under its name `self`.
 */
export function joinMetricsGroup(
  own: () => Promise<Metric[]>,
  self: string,
  channel: Channel = process,
): () => Promise<string> {
  const gather = joinGroup("metrics", own, channel);
  return async () => groupExposition((await gather()) ?? [{ name: self, value: await own() }]);
}
