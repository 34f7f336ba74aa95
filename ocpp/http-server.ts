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
import { healthAnswer, type ProcessHealth } from "./health";
import type { Member } from "../server/process-group";

export type TlsFiles = { certPath: string; keyPath: string };

/**
 * With several gateway processes on one port (OCPP_PROCESSES under `npm start`): what `/metrics`
 * and `/health` answer for the whole group (server/process-group.ts), and this process's name.
 */
export type GroupAnswers = {
  name: string;
  metricsExposition: () => Promise<string>;
  gatherHealth: () => Promise<Member<ProcessHealth>[] | null>;
};

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
  group,
}: {
  gateway: Gateway;
  db: Db;
  tls?: TlsFiles;
  /** the group's answers, when this process is one of several */
  group?: GroupAnswers;
}) {
  const handler = ocppRequests(gateway, db, group);
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
  group,
}: {
  gateway: Gateway;
  db: Db;
  certificates: Pick<DomainCertificates, "SNICallback">;
  defaultTls?: TlsFiles;
  group?: GroupAnswers;
}) {
  const server = https.createServer(
    {
      SNICallback: certificates.SNICallback,
      ...(defaultTls && {
        cert: fs.readFileSync(defaultTls.certPath),
        key: fs.readFileSync(defaultTls.keyPath),
      }),
    },
    ocppRequests(gateway, db, group),
  );
  server.on("upgrade", (req, socket, head) => gateway.handleUpgrade(req, socket, head));
  return server;
}

function ocppRequests(gateway: Gateway, db: Db, group?: GroupAnswers): http.RequestListener {
  const health = group ? { name: group.name, gather: group.gatherHealth } : undefined;
  return (req, res) => {
    if (req.method === "GET" && req.url === "/health") {
      healthAnswer(gateway, db, health)
        .then(({ status, body }) =>
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body)),
        )
        .catch(() => res.destroy());
      return;
    }
    if (req.method === "GET" && req.url === "/metrics") {
      metricsAnswer(req.headers.authorization, undefined, group?.metricsExposition)
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
