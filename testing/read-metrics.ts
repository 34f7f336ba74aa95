/**
 * Reading what `/metrics` serves (Prometheus text format 0.0.4), for benchmarks and tests: samples,
 * sums over the series whose labels match, and a histogram's buckets and quantiles computed as
 * PromQL's `histogram_quantile` does (linear within the bucket the rank falls in).
 */
export type Sample = { name: string; labels: Record<string, string>; value: number };

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (m[2] ?? "").matchAll(LABEL))
      labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    const value = m[3] === "+Inf" ? Infinity : m[3] === "-Inf" ? -Infinity : Number(m[3]);
    samples.push({ name: m[1]!, labels, value });
  }
  return samples;
}

const matches = (sample: Sample, name: string, labels: Record<string, string>) =>
  sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v);

/** The sum of every series of `name` carrying `labels` (others may differ); 0 when none. */
export function sumOf(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
) {
  return samples.filter((s) => matches(s, name, labels)).reduce((sum, s) => sum + s.value, 0);
}

export type HistogramFigures = {
  count: number;
  sum: number;
  /** cumulative counts by upper bound, ascending, ending with Infinity */
  buckets: { le: number; count: number }[];
};

/** A histogram's figures summed over its series carrying `labels`. */
export function histogramOf(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): HistogramFigures {
  const byLe = new Map<number, number>();
  for (const s of samples) {
    if (!matches(s, `${name}_bucket`, labels)) continue;
    const le = s.labels.le === "+Inf" ? Infinity : Number(s.labels.le);
    byLe.set(le, (byLe.get(le) ?? 0) + s.value);
  }
  return {
    count: sumOf(samples, `${name}_count`, labels),
    sum: sumOf(samples, `${name}_sum`, labels),
    buckets: [...byLe].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le),
  };
}

/** The q-quantile (0-1) of a histogram, as `histogram_quantile`; NaN when it counted nothing. */
export function histogramQuantile(h: HistogramFigures, q: number): number {
  const total = h.buckets.at(-1)?.count ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of h.buckets) {
    if (count >= rank) {
      // Past the last finite bound nothing says where it lies: answer that bound, as PromQL does.
      if (le === Infinity) return lower;
      return lower + (le - lower) * ((rank - below) / Math.max(count - below, 1e-9));
    }
    lower = le;
    below = count;
  }
  return lower;
}

/** Fetches `url` (a process's /metrics) with the bearer token and parses it; throws on non-200. */
export async function scrapeMetrics(url: string, token: string): Promise<Sample[]> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return parseMetrics(await res.text());
}
