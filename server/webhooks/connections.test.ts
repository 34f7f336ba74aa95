import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeConnections } from "./connections";
import { sendAttempt } from "./send-attempt";

/** A local receiver that counts the connections it accepted and the requests on each. */
async function aCountingReceiver(answer: (requestOnConnection: number) => "ok" | "drop") {
  const connections: number[] = [];
  const server = http.createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { index?: number };
    socket.index ??= connections.push(0) - 1;
    const n = ++connections[socket.index]!;
    req.resume();
    req.on("end", () => {
      if (answer(n) === "drop") socket.destroy();
      else res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

afterEach(() => closeConnections());

function sender(port: number) {
  const dns = { answer: ["93.184.216.34"] };
  const send = () =>
    sendAttempt({
      url: "http://hooks.example.com/hooks",
      body: "{}",
      headers: { "content-type": "application/json" },
      allowPrivate: false,
      resolve: () => Promise.resolve(dns.answer),
      // No internet here: the bytes for any vetted public address go to the local receiver.
      testNetwork: { connectTo: () => ({ host: "127.0.0.1", port }) },
    });
  return { dns, send };
}

describe("kept-alive delivery connections", () => {
  it("are reused only for the address each attempt's own DNS answer was vetted to", async () => {
    const receiver = await aCountingReceiver(() => "ok");
    const { dns, send } = sender(receiver.port);
    try {
      expect(await send()).toMatchObject({ ok: true, status: 200 });
      expect(await send()).toMatchObject({ ok: true, status: 200 });
      expect(receiver.connections).toEqual([2]); // two attempts, one connection

      // The name now resolves to loopback: refused before any connection is picked, kept or not.
      dns.answer = ["127.0.0.1"];
      expect(await send()).toMatchObject({ ok: false, error: "DestinationRefused" });
      expect(receiver.connections).toEqual([2]);

      // Another public address: a connection of its own, never the one made for the first.
      dns.answer = ["93.184.216.35"];
      expect(await send()).toMatchObject({ ok: true });
      expect(receiver.connections).toEqual([2, 1]);
    } finally {
      await receiver.close();
    }
  });

  it("retry once on a new connection when the receiver closed a kept one without answering", async () => {
    // Every connection's second request is dropped, as a receiver closing an idle connection
    // just as the next request arrives does.
    const receiver = await aCountingReceiver((n) => (n === 2 ? "drop" : "ok"));
    const { send } = sender(receiver.port);
    try {
      expect(await send()).toMatchObject({ ok: true });
      expect(await send()).toMatchObject({ ok: true, status: 200 });
      expect(receiver.connections).toEqual([2, 1]);
    } finally {
      await receiver.close();
    }
  });
});
