import type http from "node:http";
import type { Db } from "../db";

const PREFIX = "/.well-known/acme-challenge/";

/**
 * The HTTP-01 answer (server/ocpp-domains/README.md, "Certificates"): the CA asks
 * `http://<hostname>/.well-known/acme-challenge/<token>` on port 80; the hostname's CNAME brings it
 * to a gateway, which answers from the database, so whichever gateway it reaches knows the answer.
 * Returns false when the request is not a challenge (the caller answers it). Only a token stored
 * for the very hostname asked is answered.
 */
export function answerHttpChallenge(
  db: Db,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): boolean {
  if (req.method !== "GET" || !req.url?.startsWith(PREFIX)) return false;
  const token = req.url.slice(PREFIX.length);
  const host = (req.headers.host ?? "").toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
  const notFound = () =>
    res.writeHead(404, { "content-type": "text/plain" }).end("no such challenge\n");
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(token)) {
    notFound();
    return true;
  }
  db.acmeChallenge
    .findUnique({ where: { token }, include: { domain: { select: { hostname: true } } } })
    .then((challenge) => {
      if (!challenge || challenge.domain.hostname !== host) return notFound();
      res.writeHead(200, { "content-type": "text/plain" }).end(challenge.keyAuthorization);
    })
    .catch(() => res.writeHead(503, { "content-type": "text/plain" }).end("unavailable\n"));
  return true;
}
