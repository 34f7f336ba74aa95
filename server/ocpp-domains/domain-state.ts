import type { OcppDomain, OcppDomainOrder } from "../generated/prisma/client";

/**
 * A domain's state, derived from its row at `now` (server/ocpp-domains/README.md, "States"):
 * - `awaiting_records`: the records were never all found;
 * - `issuing_certificate`: records verified, no valid certificate yet (an order is in flight or
 *   waits for its retry);
 * - `certificate_issued`: records verified and a valid certificate (`ready` comes with the TLS
 *   handshake check, `domainReady`);
 * - `records_missing`: verified once, the records are gone since; it keeps its certificate (and
 *   works) until that lapses, and no renewal is attempted;
 * - `lapsed`: records gone and no valid certificate.
 */
export type DomainStatus =
  "awaiting_records" | "issuing_certificate" | "certificate_issued" | "records_missing" | "lapsed";

export type CertificateStatus =
  "none" | "ordering" | "retrying" | "issued" | "renewing" | "expired" | "failed";

export const certificateValid = (d: Pick<OcppDomain, "certificateNotAfter">, now: Date) =>
  d.certificateNotAfter !== null && d.certificateNotAfter > now;

export function domainStatus(d: OcppDomain, now: Date): DomainStatus {
  if (d.dnsState === "pending") return "awaiting_records";
  if (d.dnsState === "missing") return certificateValid(d, now) ? "records_missing" : "lapsed";
  return certificateValid(d, now) ? "certificate_issued" : "issuing_certificate";
}

/**
 * `ready`: the last TLS handshake check presented the domain's certificate, and it is still
 * valid (server/ocpp-domains/tls-check.ts). A lapsed certificate or a failed check makes it false.
 */
export const domainReady = (d: Pick<OcppDomain, "certificateNotAfter" | "tlsReadyAt">, now: Date) =>
  d.tlsReadyAt !== null && certificateValid(d, now);

/**
 * When a certificate is renewed: once two thirds of its lifetime have passed (Let's Encrypt's
 * advice; 30 days before the end of a 90-day certificate).
 */
export function renewAfter(d: Pick<OcppDomain, "certificateNotBefore" | "certificateNotAfter">) {
  if (!d.certificateNotBefore || !d.certificateNotAfter) return null;
  const from = d.certificateNotBefore.getTime();
  return new Date(from + ((d.certificateNotAfter.getTime() - from) * 2) / 3);
}

/** Does the domain need a new certificate at `now` (none, lapsed, or due for renewal)? */
export function needsCertificate(d: OcppDomain, now: Date): "issue" | "renew" | null {
  if (d.dnsState !== "verified") return null;
  if (!certificateValid(d, now)) return "issue";
  const due = renewAfter(d);
  return due && due <= now ? "renew" : null;
}

export function certificateStatus(
  d: OcppDomain,
  latest: OcppDomainOrder | null,
  now: Date,
): CertificateStatus {
  const open = latest?.status === "pending";
  if (certificateValid(d, now)) return open ? "renewing" : "issued";
  if (open) return latest.error ? "retrying" : "ordering";
  if (d.certificateNotAfter) return "expired";
  return latest?.status === "failed" ? "failed" : "none";
}
