/**
 * A CPU profile of another Node process for a while, over its inspector (a process started with
 * `--inspect=127.0.0.1:0` prints the address), summarized by self time: which part of the stack a
 * request's CPU goes to. Used by `api-read.ts` (BENCH_PROFILE=1).
 */
import WebSocket from "ws";

type Node = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
export type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

/** The inspector's WebSocket address a process printed (`Debugger listening on ws://…`). */
export const inspectorUrl = (output: string) =>
  /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];

/** Starts the profiler; the returned function stops it and gives the profile. */
export async function startProfile(url: string): Promise<() => Promise<Profile>> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on("message", (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      id += 1;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call("Profiler.enable");
  await call("Profiler.setSamplingInterval", { interval: 250 }); // µs
  await call("Profiler.start");
  return async () => {
    const { profile } = (await call("Profiler.stop")) as { profile: Profile };
    ws.close();
    return profile;
  };
}

/** Which part of the stack a function belongs to, by its file. */
export function partOf(url: string, functionName: string): string {
  if (!url) {
    if (functionName === "(garbage collector)") return "garbage collection";
    if (functionName === "(idle)") return "idle";
    if (functionName === "(program)") return "V8 and native (program)";
    return "native built-ins";
  }
  if (url.includes("/next/dist/")) return "Next.js";
  if (url.includes("/server/http/")) return "our /v1 router (server/http)";
  if (url.includes("/server/access/") || url.includes("/server/auth/")) return "auth (key check)";
  if (url.includes("rate-limit")) return "rate limit";
  if (url.includes("/server/stations/")) return "station read (service, presenter)";
  if (url.includes("/scripts/web-")) return "web front (scripts/web-*.ts)";
  if (/\/node_modules\/(pg|pg-pool|pg-protocol|pg-types)\//.test(url))
    return "PostgreSQL driver (pg)";
  if (url.includes("prisma") || url.includes("/server/generated/")) return "Prisma client";
  if (url.includes("/zod/")) return "zod";
  if (url.includes("prom-client")) return "metrics (prom-client)";
  if (url.includes("/server/")) return "other server/ code";
  if (url.startsWith("node:internal/deps/undici")) return "Node: fetch Request/Response (undici)";
  if (url.startsWith("node:internal/webstreams")) return "Node: web streams";
  if (/^node:(internal\/)?(_http|http)/.test(url)) return "Node: http";
  if (/^node:(internal\/)?(net|stream|streams)/.test(url)) return "Node: net and streams";
  if (url.startsWith("node:")) return "Node: other";
  return `other: ${url.split("/node_modules/").pop()!.split("/")[0]}`;
}

/**
 * Self time by part (percent of the busy time, idle left out), and by part with Node's and V8's
 * own functions charged to the nearest caller of ours or a library's (who asked for the work).
 */
export function summarize(profile: Profile) {
  const self = new Map<number, number>();
  profile.samples.forEach((node, i) =>
    self.set(node, (self.get(node) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const own = new Map<string, number>();
  const charged = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const n of profile.nodes) {
    const t = self.get(n.id) ?? 0;
    const part = partOf(n.callFrame.url, n.callFrame.functionName);
    if (!t || part === "idle") continue;
    busy += t;
    own.set(part, (own.get(part) ?? 0) + t);
    const where = `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
    functions.set(where, (functions.get(where) ?? 0) + t);
    let caller = n;
    let callerPart = part;
    while (/^(Node:|native|V8)/.test(callerPart) && parent.has(caller.id)) {
      caller = byId.get(parent.get(caller.id)!)!;
      callerPart = partOf(caller.callFrame.url, caller.callFrame.functionName);
    }
    charged.set(callerPart, (charged.get(callerPart) ?? 0) + t);
  }
  const percent = (m: Map<string, number>, top = 40) =>
    Object.fromEntries(
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([k, v]) => [k, Math.round((1000 * v) / busy) / 10]),
    );
  return {
    busy_ms: Math.round(busy / 1000),
    self_percent: percent(own),
    charged_to_caller_percent: percent(charged),
    top_functions_percent: percent(functions, 25),
  };
}
