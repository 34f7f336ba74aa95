import { EventEmitter } from "node:events";
import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { histogramOf, parseMetrics, sumOf } from "../../testing/read-metrics";
import { groupExposition, joinMetricsGroup } from "./process-group";

/** One process's registry: a counter and a histogram, as a gateway's would have them. */
function aProcess(handshakes: number, durations: number[]) {
  const registry = new Registry();
  const counter = new Counter({
    name: "t_handshakes_total",
    help: "handshakes",
    labelNames: ["outcome"],
    registers: [registry],
  });
  counter.inc({ outcome: "accepted" }, handshakes);
  const histogram = new Histogram({
    name: "t_duration_seconds",
    help: "durations",
    buckets: [0.01, 0.1],
    registers: [registry],
  });
  for (const d of durations) histogram.observe(d);
  return registry;
}

describe("a process group's metrics", () => {
  it("keeps every process's series under its process label, once per metric, with who answered", async () => {
    const one = aProcess(3, [0.005, 0.05]);
    const two = aProcess(7, [0.5]);
    const text = await groupExposition([
      { name: "ocpp1", value: await one.getMetricsAsJSON() },
      { name: "ocpp2", value: await two.getMetricsAsJSON() },
      { name: "ocpp3", value: null },
    ]);
    const samples = parseMetrics(text);
    const labels = { outcome: "accepted" };
    expect(sumOf(samples, "t_handshakes_total", { ...labels, process: "ocpp1" })).toBe(3);
    expect(sumOf(samples, "t_handshakes_total", { ...labels, process: "ocpp2" })).toBe(7);
    expect(sumOf(samples, "t_handshakes_total", { process: "ocpp3" })).toBe(0);
    // a histogram's series stay whole per process: buckets, sum and count
    expect(histogramOf(samples, "t_duration_seconds", { process: "ocpp1" })).toMatchObject({
      count: 2,
      buckets: [
        { le: 0.01, count: 1 },
        { le: 0.1, count: 2 },
        { le: Infinity, count: 2 },
      ],
    });
    expect(histogramOf(samples, "t_duration_seconds", { process: "ocpp2" })).toMatchObject({
      count: 1,
      sum: 0.5,
      buckets: [
        { le: 0.01, count: 0 },
        { le: 0.1, count: 0 },
        { le: Infinity, count: 1 },
      ],
    });
    for (const name of ["ocpp1", "ocpp2", "ocpp3"])
      expect(sumOf(samples, "chargecloud_process_up", { process: name })).toBe(
        name === "ocpp3" ? 0 : 1,
      );
    // one HELP and TYPE per metric, whatever the number of processes
    expect(text.match(/^# TYPE t_handshakes_total counter$/gm)).toHaveLength(1);
    expect(text.match(/^# HELP t_duration_seconds /gm)).toHaveLength(1);
  });

  it("answers the process's own metrics under its name when npm start is not there", async () => {
    const own = aProcess(4, []);
    const channel = Object.assign(new EventEmitter(), { connected: false, send: () => false });
    const exposition = joinMetricsGroup(() => own.getMetricsAsJSON(), "ocpp2", channel);
    const samples = parseMetrics(await exposition());
    expect(sumOf(samples, "t_handshakes_total", { process: "ocpp2" })).toBe(4);
    expect(sumOf(samples, "chargecloud_process_up", { process: "ocpp2" })).toBe(1);
  });
});
