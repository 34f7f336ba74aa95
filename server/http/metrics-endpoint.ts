import crypto from "node:crypto";
import { env } from "../env";
import { DomainError } from "../errors";
import { ERROR_STATUS, errorBody } from "./errors";
import { metrics } from "../metrics/registry";

export type MetricsAnswer = { status: number; headers: Record<string, string>; body: string };

/**
 * `GET /metrics` on any process, in Prometheus text format. Metrics tell whoever reads them how
 * busy the service is, which chargers' actions fail and how many jobs wait, so they are served only
 * when `METRICS_TOKEN` is set, to a scraper that sends it as a bearer token (compared in constant
 * time); without the setting `/metrics` does not exist (404), as on a process that never had it.
 * One token for every process, on each process's own port: a scraper needs no other address, and
 * a proxy in front of the web process may still keep the path to itself. `exposition` is what a
 * scrape answers: this process's registry, or a group's (server/metrics/process-group.ts).
 */
export async function metricsAnswer(
  authorization: string | null | undefined,
  token: string | null = env().metricsToken,
  exposition: () => Promise<string> = () => metrics().registry.metrics(),
): Promise<MetricsAnswer> {
  if (token === null)
    return refusal(
      new DomainError("route_not_found", "No route matches /metrics.", { path: "/metrics" }),
    );
  const sent = /^Bearer ([\x21-\x7e]+)$/i.exec(authorization ?? "")?.[1];
  if (!sent || !sameSecret(sent, token))
    return refusal(
      new DomainError("unauthenticated", "Send the metrics token: Authorization: Bearer <token>."),
      { "WWW-Authenticate": 'Bearer realm="metrics"' },
    );
  return {
    status: 200,
    headers: { "Content-Type": metrics().registry.contentType, "Cache-Control": "no-store" },
    body: await exposition(),
  };
}

function sameSecret(sent: string, expected: string) {
  const digest = (value: string) => crypto.createHash("sha256").update(value).digest();
  return crypto.timingSafeEqual(digest(sent), digest(expected));
}

function refusal(error: DomainError, headers: Record<string, string> = {}): MetricsAnswer {
  return {
    status: ERROR_STATUS[error.code],
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      ...headers,
    },
    body: JSON.stringify(errorBody(error)),
  };
}
