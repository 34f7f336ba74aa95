import type { OcppDomain, OcppDomainOrder } from "../generated/prisma/client";
import { expectedRecords, type DnsChecks, type RecordCheck } from "./dns-records";
import type { DomainView } from "./domain-schema";
import { certificateStatus, domainReady, domainStatus, renewAfter } from "./domain-state";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const DNS_MESSAGES = {
  pending: "Add both records, then verify. The service checks them again periodically.",
  verified: "Both records are in place.",
  missing:
    "Records verified earlier are gone: chargers keep working until the certificate lapses, and it is not renewed until they are back.",
};

/** The API's view of a domain at `now` with its latest order. */
export function presentDomain(
  d: OcppDomain,
  latest: OcppDomainOrder | null,
  cnameTarget: string,
  now: Date,
): DomainView {
  const checks = d.dnsChecks as DnsChecks | null;
  const records: RecordCheck[] = expectedRecords(d.hostname, d.verificationToken, cnameTarget).map(
    (r) =>
      checks?.records.find(
        (c) => c.type === r.type && c.name === r.name && c.value === r.value,
      ) ?? {
        ...r,
        result: "unchecked",
        found: [],
        message: `Add ${r.type} ${r.name} → ${r.value}.`,
      },
  );
  const orderError = latest?.error as { kind: string; message: string } | null | undefined;
  const ready = domainReady(d, now);
  return {
    id: d.id,
    hostname: d.hostname,
    status: domainStatus(d, now),
    ready,
    connection_url_template: ready ? `wss://${d.hostname}/ocpp/{station_name}` : null,
    tls_check: {
      checked_at: iso(d.tlsCheckedAt),
      ready_at: iso(d.tlsReadyAt),
      serial: d.tlsSerial,
      error: d.tlsError,
    },
    records,
    dns: {
      state: d.dnsState as DomainView["dns"]["state"],
      checked_at: iso(d.dnsCheckedAt),
      verified_at: iso(d.dnsVerifiedAt),
      missing_since: iso(d.dnsMissingSince),
      message:
        d.dnsState === "verified" || !checks
          ? DNS_MESSAGES[d.dnsState as keyof typeof DNS_MESSAGES]
          : `${DNS_MESSAGES[d.dnsState as keyof typeof DNS_MESSAGES]} ${records
              .filter((r) => r.result !== "found")
              .map((r) => r.message)
              .join(" ")}`,
    },
    certificate: {
      status: certificateStatus(d, latest, now),
      serial: d.certificateSerial,
      not_before: iso(d.certificateNotBefore),
      not_after: iso(d.certificateNotAfter),
      renew_after: iso(renewAfter(d)),
      order: latest
        ? {
            id: latest.id,
            reason: latest.reason as "issue" | "renew",
            status: latest.status as "pending" | "succeeded" | "failed" | "canceled",
            tries: latest.tries,
            error: orderError ? { kind: orderError.kind, message: orderError.message } : null,
            next_try_at: latest.status === "pending" ? iso(latest.nextTryAt) : null,
            created_at: latest.createdAt.toISOString(),
            completed_at: iso(latest.completedAt),
          }
        : null,
    },
    created_at: d.createdAt.toISOString(),
  };
}
