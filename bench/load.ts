import http from "node:http";

export type LoadResult = { requests: number; non2xx: number; seconds: number };

/**
 * A closed-loop load generator: `concurrency` keep-alive connections, each sending the next request
 * as soon as the previous answer is read, for `seconds`. Bounded in time; loopback only.
 */
export async function runLoad(options: {
  url: string;
  concurrency: number;
  seconds: number;
  headers?: (i: number) => Record<string, string>;
  /** when given, every request's latency (ms) is added to it, to merge several runs */
  samples?: number[];
}): Promise<LoadResult> {
  const target = new URL(options.url);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(target.hostname))
    throw new Error("loopback only");
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  let non2xx = 0;
  let sent = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      const req = http.request(
        target,
        { agent, method: "GET", headers: options.headers?.(sent++) ?? {} },
        (res) => {
          res.resume();
          res.on("end", () => {
            latencies.push(performance.now() - t0);
            if ((res.statusCode ?? 0) >= 300) non2xx++;
            resolve();
          });
        },
      );
      req.on("error", reject);
      req.end();
    });
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) await once();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  options.samples?.push(...latencies);
  return { requests: latencies.length, non2xx, seconds };
}
