/**
 * What this process's heap holds, by kind of object: a V8 heap snapshot taken in-process and
 * summed per constructor (objects), per function name (closures) and per type (strings, arrays,
 * code), so two censuses subtracted and divided by the connections added between them say what
 * one connection keeps alive.
 */
import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** Full collections until the heap stops shrinking, so a census counts only what is reachable. */
export function collect() {
  let last = Infinity;
  for (let i = 0; i < 5; i++) {
    gc();
    const used = process.memoryUsage().heapUsed;
    if (used >= last * 0.999) break;
    last = used;
  }
}

export type Census = Map<string, { count: number; bytes: number }>;

type Snapshot = {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
};

export async function heapCensus(): Promise<Census> {
  collect();
  const chunks: Buffer[] = [];
  for await (const chunk of v8.getHeapSnapshot()) chunks.push(chunk as Buffer);
  const snap = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f));
  const census: Census = new Map();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + typeAt!]!]!;
    const named = type === "object" || type === "closure" || type === "native";
    const key = named ? `${type} ${snap.strings[snap.nodes[i + nameAt!]!]}` : type;
    const entry = census.get(key) ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += snap.nodes[i + sizeAt!]!;
    census.set(key, entry);
  }
  return census;
}

/** What `after` holds beyond `before`, per one of `n` things added, largest first. */
export function perThing(before: Census, after: Census, n: number, top = 25) {
  const rows = [...after].map(([key, a]) => {
    const b = before.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: (a.count - b.count) / n, bytes: (a.bytes - b.bytes) / n };
  });
  rows.sort((x, y) => y.bytes - x.bytes);
  const total = rows.reduce((sum, r) => sum + r.bytes, 0);
  return {
    heap_bytes: Math.round(total),
    top: rows.slice(0, top).map((r) => ({
      what: r.key,
      per_connection: Math.round(r.count * 100) / 100,
      bytes: Math.round(r.bytes),
    })),
  };
}
