import http from "node:http";
import type { AddressInfo } from "node:net";

export type Received = { headers: http.IncomingHttpHeaders; body: string; path: string };

/**
 * A local HTTP receiver whose answer per request is scripted: a status, a redirect, or a hang.
 * Its answers carry a body of `bodyBytes` (by default one too long to be read to its end).
 */
export async function aReceiver(
  script: (n: number) => number | "hang" | { redirect: string } = () => 200,
  { bodyBytes = 100_000 }: { bodyBytes?: number } = {},
) {
  const received: Received[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body, path: req.url ?? "" });
      const answer = script(received.length);
      if (answer === "hang") return void hanging.push(res);
      if (typeof answer === "object")
        return void res.writeHead(302, { location: answer.redirect }).end();
      res.writeHead(answer, { "content-type": "text/plain" }).end("x".repeat(bodyBytes));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: async () => {
      hanging.forEach((res) => res.destroy());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
