import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { RPCClient } from "ocpp-rpc";
import WebSocket from "ws";
import { db, type Db } from "../server/db";
import { DEFAULT_QUEUE, type JobDefinition } from "../server/jobs/define-job";
import { startJobRunner } from "../server/jobs/runner";
import { operationSweepJob } from "../server/operations/operation-jobs";
import { createGateway, type GatewayOptions } from "../ocpp/gateway";
import { startDomainCertificates } from "../ocpp/domain-certificates";
import { createDomainTlsServer, createOcppServer, type TlsFiles } from "../ocpp/http-server";
import { strictModeValidators } from "../ocpp/protocol/validators";
import { setUploadBaseUrl } from "../server/device-jobs/upload-url";
import { startSandboxHost, type SandboxHostOptions } from "../ocpp/sandbox/host";

/**
 * A real gateway on a loopback port, against this test file's database, with the job runner its
 * process would have for operations: the operation sweep (on `default`) and the gateway's own
 * re-dispatch job (on its queue). Other background jobs are left to the tests that want them
 * (`jobs`, run by the same runner). `db`: the client the gateway itself uses (a test may wrap it
 * to hold a statement). `sandbox`: the process's virtual-charger host too (ocpp/sandbox), with
 * these options (a shorter idle period, a tick of the test's own).
 */
export async function startTestGateway(
  options: {
    callTimeoutMs?: number;
    tls?: TlsFiles;
    auth?: GatewayOptions["auth"];
    lastSeen?: GatewayOptions["lastSeen"];
    handshakePace?: GatewayOptions["handshakePace"];
    admission?: GatewayOptions["admission"];
    jobs?: JobDefinition[];
    db?: Db;
    sandbox?: Partial<Omit<SandboxHostOptions, "db" | "databaseUrl" | "gatewayId" | "ocppUrl">>;
    /**
     * the TLS listener for custom OCPP domains too (ocpp/domain-certificates.ts), on a loopback
     * port of its own (`domainTlsPort`), with this default certificate for `ownHosts`
     */
    domainTls?: { defaultTls?: TlsFiles; ownHosts?: string[]; fullReloadMs?: number };
  } = {},
) {
  const callTimeoutMs = options.callTimeoutMs ?? 1500;
  const certificates = options.domainTls
    ? await startDomainCertificates({
        db: db(),
        databaseUrl: process.env.DATABASE_URL!,
        defaultTls: options.domainTls.defaultTls ?? null,
        ownHosts: options.domainTls.ownHosts ?? [],
        ...(options.domainTls.fullReloadMs && { fullReloadMs: options.domainTls.fullReloadMs }),
      })
    : undefined;
  const gateway = await createGateway({
    db: options.db ?? db(),
    databaseUrl: process.env.DATABASE_URL!,
    callTimeoutMs,
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.lastSeen ? { lastSeen: options.lastSeen } : {}),
    ...(options.handshakePace ? { handshakePace: options.handshakePace } : {}),
    ...(options.admission ? { admission: options.admission } : {}),
    ...(certificates ? { domains: certificates } : {}),
  });
  const jobs = await startJobRunner({
    db: db(),
    databaseUrl: process.env.DATABASE_URL!,
    definitions: [operationSweepJob({ callTimeoutMs }), ...(options.jobs ?? []), ...gateway.jobs],
    queues: [DEFAULT_QUEUE, gateway.queue],
  });
  const server = createOcppServer({
    gateway,
    db: db(),
    ...(options.tls ? { tls: options.tls } : {}),
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  // chargers upload diagnostics to this gateway's listener (server/device-jobs/upload-url.ts)
  setUploadBaseUrl(`${options.tls ? "https" : "http"}://127.0.0.1:${port}`);
  const domainServer = certificates
    ? createDomainTlsServer({
        gateway,
        db: db(),
        certificates,
        ...(options.domainTls?.defaultTls ? { defaultTls: options.domainTls.defaultTls } : {}),
      })
    : undefined;
  if (domainServer)
    await new Promise<void>((resolve) => domainServer.listen(0, "127.0.0.1", resolve));
  const domainTlsPort = domainServer ? (domainServer.address() as AddressInfo).port : null;
  const url = `${options.tls ? "wss" : "ws"}://127.0.0.1:${port}/ocpp`;
  const sandbox = options.sandbox
    ? await startSandboxHost({
        db: db(),
        databaseUrl: process.env.DATABASE_URL!,
        gatewayId: gateway.id,
        ocppUrl: url,
        ...(options.tls ? { tls: options.tls } : {}),
        ...options.sandbox,
      })
    : undefined;
  return {
    gateway,
    jobs,
    url,
    sandbox,
    certificates,
    domainTlsPort,
    close: async () => {
      await sandbox?.stop();
      await jobs.stop(1_000);
      await gateway.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (domainServer) await new Promise<void>((resolve) => domainServer.close(() => resolve()));
      await certificates?.close();
    },
  };
}

export type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

/**
 * A charger that is not ours: ocpp-rpc's RPCClient in strict mode, validating every message both
 * ways against the official schemas (with a working validator for 2.1).
 */
export function aCharger(options: {
  url: string;
  identity: string;
  password?: string;
  protocol: "ocpp1.6" | "ocpp2.0.1" | "ocpp2.1";
}) {
  return new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
    endpoint: options.url,
    identity: options.identity,
    password: options.password ?? null,
    protocols: [options.protocol],
    strictMode: true,
    strictModeValidators,
    reconnect: false,
    callTimeoutMs: 10_000,
  });
}

/**
 * `aCharger` for a registered station, connected: the charger a gateway test talks through.
 * `prepare` runs before the connection opens (handlers for the gateway's calls, listeners for
 * every frame), so nothing the gateway sends at once is missed.
 */
export async function aConnectedCharger(
  gateway: { url: string },
  station: { name: string },
  password: string | undefined,
  protocol: "ocpp1.6" | "ocpp2.0.1" | "ocpp2.1",
  prepare?: (charger: RPCClient) => void,
) {
  const charger = aCharger({
    url: gateway.url,
    identity: station.name,
    password,
    protocol,
  });
  prepare?.(charger);
  await charger.connect();
  return charger;
}

/** Polls until the check holds, or fails after `ms`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, ms = 8000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A charger speaking OCPP-J frames by hand over a plain `ws` socket, for frames a strict client
 * cannot send (unparseable, over-long message IDs, deep nesting, answers that break the schema).
 * `exchange` sends one frame and resolves with the parsed answer carrying `messageId`.
 */
export async function aRawCharger(options: {
  url: string;
  identity: string;
  password: string;
  protocol: "ocpp1.6" | "ocpp2.0.1" | "ocpp2.1";
}) {
  const basic = Buffer.from(`${options.identity}:${options.password}`).toString("base64");
  const ws = new WebSocket(
    `${options.url}/${encodeURIComponent(options.identity)}`,
    [options.protocol],
    {
      headers: { authorization: `Basic ${basic}` },
    },
  );
  await once(ws, "open");
  const received: unknown[][] = [];
  ws.on("message", (data: Buffer) => received.push(JSON.parse(data.toString("utf8")) as unknown[]));
  return {
    received,
    isOpen: () => ws.readyState === WebSocket.OPEN,
    exchange: async (frame: string, messageId: string) => {
      ws.send(frame);
      let answer: unknown[] | undefined;
      await waitUntil(() => {
        answer = received.find((r) => r[1] === messageId);
        return answer !== undefined || ws.readyState !== WebSocket.OPEN;
      }, 5000);
      if (!answer) throw new Error(`no answer to ${messageId}; the socket closed`);
      received.splice(received.indexOf(answer), 1);
      return answer;
    },
    /** sends one frame without waiting for anything (e.g. an answer to the gateway's call) */
    send: (frame: string) => ws.send(frame),
    close: () => ws.terminate(),
  };
}

/**
 * One OCPP 1.6 handshake with HTTP Basic credentials: 101 when the socket opened (it is then
 * dropped), else the HTTP status of the refusal, and the milliseconds until that answer (and a
 * refusal's `Retry-After`, when it has one).
 */
export function handshake(
  url: string,
  identity: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; ms: number; retryAfter?: string }> {
  const started = performance.now();
  const basic = Buffer.from(`${identity}:${password}`).toString("base64");
  const ws = new WebSocket(`${url}/${identity}`, ["ocpp1.6"], {
    headers: { authorization: `Basic ${basic}`, ...headers },
  });
  return new Promise((resolve) => {
    const done = (status: number, retryAfter?: string) =>
      resolve({
        status,
        ms: performance.now() - started,
        ...(retryAfter !== undefined && { retryAfter }),
      });
    ws.on("error", () => done(0));
    ws.once("open", () => {
      done(101);
      ws.terminate();
    });
    ws.once("unexpected-response", (request, response) => {
      done(response.statusCode ?? 0, response.headers["retry-after"]);
      request.destroy();
    });
  });
}
