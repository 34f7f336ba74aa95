import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { Db } from "../server/db";
import { metricsAnswer } from "../server/http/metrics-endpoint";
import { answerHttpChallenge } from "../server/ocpp-domains/http-challenge";
import type { DomainCertificates } from "./domain-certificates";
import type { Gateway } from "./gateway";
import { countInto } from "../server/metrics/registry";
import { answerUpload } from "./uploads";

export type TlsFiles = { certPath: string; keyPath: string };

/**
 * The gateway's listener: websocket upgrades at /ocpp/<station name>, `GET /health`, `GET /metrics`
 * (Prometheus, behind METRICS_TOKEN: server/http/metrics-endpoint.ts), ACME HTTP-01 answers for
 * custom OCPP domains (`/.well-known/acme-challenge/…`, server/ocpp-domains/), chargers'
 * diagnostics uploads (`PUT|POST /uploads/<token>`, `./uploads.ts`), and a JSON 404 for anything else. With a certificate and key it serves TLS (wss://, OCPP security
 * profile 2: TLS plus HTTP Basic); without, plain ws:// (profile 1, behind a TLS proxy in production).
 */
export function createOcppServer({
  gateway,
  db,
  tls,
  metricsExposition,
}: {
  gateway: Gateway;
  db: Db;
  tls?: TlsFiles;
  /** what `/metrics` answers, when not this process's own registry (a group's) */
  metricsExposition?: () => Promise<string>;
}) {
  const handler = ocppRequests(gateway, db, metricsExposition);
  const server = tls
    ? https.createServer(
        { cert: fs.readFileSync(tls.certPath), key: fs.readFileSync(tls.keyPath) },
        handler,
      )
    : http.createServer(handler);
  server.on("upgrade", (req, socket, head) => gateway.handleUpgrade(req, socket, head));
  server.on("close", countInto("connections", gateway.connectionCount));
  return server;
}

/**
 * With OCPP_TLS_PORT set, the gateway's TLS listener for custom OCPP domains (ocpp/README.md,
 * "Custom domains"): the same routes as the OCPP listener, over TLS with the certificate picked by
 * SNI from `certificates` (hot-reloaded: a handshake takes the one in force, an open session keeps
 * its socket), the default certificate (OCPP_TLS_CERT/KEY) for the service's own names and for
 * handshakes without SNI.
 */
export function createDomainTlsServer({
  gateway,
  db,
  certificates,
  defaultTls,
  metricsExposition,
}: {
  gateway: Gateway;
  db: Db;
  certificates: Pick<DomainCertificates, "SNICallback">;
  defaultTls?: TlsFiles;
  metricsExposition?: () => Promise<string>;
}) {
  const server = https.createServer(
    {
      SNICallback: certificates.SNICallback,
      ...(defaultTls && {
        cert: fs.readFileSync(defaultTls.certPath),
        key: fs.readFileSync(defaultTls.keyPath),
      }),
    },
    ocppRequests(gateway, db, metricsExposition),
  );
  server.on("upgrade", (req, socket, head) => gateway.handleUpgrade(req, socket, head));
  return server;
}

function ocppRequests(
  gateway: Gateway,
  db: Db,
  metricsExposition?: () => Promise<string>,
): http.RequestListener {
  return (req, res) => {
    if (req.method === "GET" && req.url === "/health") {
      db.$queryRaw`SELECT 1`
        .then(
          () => 200,
          () => 503,
        )
        .then((status) => {
          res.writeHead(status, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              status: status === 200 ? "ok" : "degraded",
              database: status === 200 ? "ok" : "unreachable",
              gateway_id: gateway.id,
              connections: gateway.connectionCount(),
              memory_rss_bytes: process.memoryUsage().rss,
            }),
          );
        })
        .catch(() => res.destroy());
      return;
    }
    if (req.method === "GET" && req.url === "/metrics") {
      metricsAnswer(req.headers.authorization, undefined, metricsExposition)
        .then(({ status, headers, body }) => res.writeHead(status, headers).end(body))
        .catch(() => res.destroy());
      return;
    }
    if (answerHttpChallenge(db, req, res)) return;
    if (answerUpload(db, req, res)) return;
    res.writeHead(404, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        error: {
          code: "route_not_found",
          message: "Chargers connect to /ocpp/<station name>.",
          details: {},
        },
      }),
    );
  };
}

/**
 * With ACME_HTTP_PORT set (80 in production), the gateway also listens there in plain HTTP for the
 * CA's HTTP-01 requests to custom OCPP domains, and answers nothing else.
 */
export function createAcmeChallengeServer(db: Db) {
  return http.createServer((req, res) => {
    if (answerHttpChallenge(db, req, res)) return;
    res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  });
}
