import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { selfSignedCertificate } from "../../testing/certificates";
import { closeConnections } from "./connections";
import { sendAttempt } from "./send-attempt";

type Answer = (requestOnConnection: number) => "ok" | "drop";

// A certificate for the endpoint's hostname, as a public receiver would present.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cp-hooks-tls-"));
const { certPath, keyPath } = selfSignedCertificate(dir, "hooks.example.com");
const tls = { cert: fs.readFileSync(certPath, "utf8"), key: fs.readFileSync(keyPath, "utf8") };
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A local receiver (HTTP, or HTTPS with the certificate above) that counts the connections it
 * accepted, the requests on each, and the TLS handshakes it completed.
 */
async function aCountingReceiver(answer: Answer, { secure = false } = {}) {
  const connections: number[] = [];
  const handshakes: (string | false | null)[] = [];
  const handler: http.RequestListener = (req, res) => {
    const socket = req.socket as typeof req.socket & { index?: number };
    socket.index ??= connections.push(0) - 1;
    const n = ++connections[socket.index]!;
    req.resume();
    req.on("end", () => {
      if (answer(n) === "drop") socket.destroy();
      else res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  };
  const server = secure ? https.createServer(tls, handler) : http.createServer(handler);
  server.on("secureConnection", (socket: TLSSocket) => handshakes.push(socket.servername));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    connections,
    handshakes,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

afterEach(() => closeConnections());

function sender(port: number, { secure = false } = {}) {
  const dns = { answer: ["93.184.216.34"] };
  const send = () =>
    sendAttempt({
      url: `${secure ? "https" : "http"}://hooks.example.com/hooks`,
      body: "{}",
      headers: { "content-type": "application/json" },
      allowPrivate: false,
      resolve: () => Promise.resolve(dns.answer),
      // No internet here: the bytes for any vetted public address go to the local receiver.
      testNetwork: {
        connectTo: () => ({ host: "127.0.0.1", port }),
        ...(secure ? { ca: tls.cert } : {}),
      },
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

  it("over TLS: one handshake serves the attempts to a vetted address; another address, or a name vetted private, gets none of it", async () => {
    const receiver = await aCountingReceiver(() => "ok", { secure: true });
    const { dns, send } = sender(receiver.port, { secure: true });
    try {
      expect(await send()).toMatchObject({ ok: true, status: 200 });
      expect(await send()).toMatchObject({ ok: true, status: 200 });
      expect(await send()).toMatchObject({ ok: true, status: 200 });
      expect(receiver.connections).toEqual([3]);
      expect(receiver.handshakes).toEqual(["hooks.example.com"]); // SNI is the URL's hostname

      dns.answer = ["127.0.0.1"];
      expect(await send()).toMatchObject({ ok: false, error: "DestinationRefused" });
      dns.answer = ["93.184.216.35"];
      expect(await send()).toMatchObject({ ok: true });
      expect(receiver.connections).toEqual([3, 1]);
      expect(receiver.handshakes).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });

  it("over TLS: a kept connection the receiver closed without answering is retried once on a new one", async () => {
    const receiver = await aCountingReceiver((n) => (n === 2 ? "drop" : "ok"), { secure: true });
    const { send } = sender(receiver.port, { secure: true });
    try {
      expect(await send()).toMatchObject({ ok: true });
      expect(await send()).toMatchObject({ ok: true, status: 200 });
      expect(receiver.connections).toEqual([2, 1]);
      expect(receiver.handshakes).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });
});
