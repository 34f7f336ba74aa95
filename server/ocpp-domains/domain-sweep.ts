import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import { env } from "../env";
import { defineCronJob } from "../jobs/define-job";
import { checkRecords, dnsResolver, type DnsResolver } from "./dns-records";
import { orderIfNeeded, recordCheck } from "./record-check";
import { checkDomainTls, defaultTlsTarget, type TlsTarget } from "./tls-check";

/** How often a domain's records are checked again: soon while awaited, hourly once verified. */
export const RECHECK_PENDING_MS = 5 * 60_000;
export const RECHECK_VERIFIED_MS = 3_600_000;
/** Domains checked per run (each check is two lookups of at most 4 s). */
const BATCH = 50;

/**
 * The periodic work (server/ocpp-domains/README.md, "Background"), every 5 minutes on the ocpp
 * process's job runner: checks the records of domains whose last check is old (the lookups
 * outside any transaction, each result recorded under the domain's lock, as the verify route
 * does), and journals an order for every verified domain that needs a certificate (none yet, one
 * lapsed, or one due for renewal) and has none in flight. Orders run as their own jobs.
 */
export const domainSweepJob = (
  resolver: () => DnsResolver = () => dnsResolver(env().ocppDomains.dnsServer),
  tlsTarget: () => TlsTarget = defaultTlsTarget,
) =>
  defineCronJob({
    id: "ocpp-domains.sweep",
    everyMs: 5 * 60_000,
    // each domain: two lookups of at most 4 s, a handshake of at most 5 s
    leaseMs: BATCH * 9_000 + 60_000,
    handler: async (_slot, ctx) => {
      await sweepDomains(ctx.db, resolver(), ctx.now(), tlsTarget());
    },
  });

export const domainSweepJobDefinition = domainSweepJob();

/** How often a served domain's TLS handshake is checked again: ready ones, and not-ready ones. */
export const RECHECK_TLS_READY_MS = 30 * 60_000;
export const RECHECK_TLS_FAILING_MS = 5 * 60_000;

/** `tlsTarget`: where the `ready` checks' handshakes go; without it none is made. */
export async function sweepDomains(
  db: Db,
  resolver: DnsResolver,
  now: Date,
  tlsTarget?: TlsTarget,
): Promise<{ checked: number; ordered: number; tlsChecked: number }> {
  const due = await db.$queryRaw<{ id: string; hostname: string; verification_token: string }[]>`
    SELECT id, hostname, verification_token FROM ocpp_domains
    WHERE dns_checked_at IS NULL
       OR (dns_state = 'pending' AND dns_checked_at <= ${new Date(now.getTime() - RECHECK_PENDING_MS)})
       OR (dns_state <> 'pending' AND dns_checked_at <= ${new Date(now.getTime() - RECHECK_VERIFIED_MS)})
    ORDER BY dns_checked_at NULLS FIRST
    LIMIT ${BATCH}`;
  const target = env().ocppDomains.cnameTarget;
  let ordered = 0;
  for (const d of due) {
    const checks = await checkRecords(d.hostname, d.verification_token, target, resolver, now);
    const recorded = await inTransaction(db, (tx) => recordCheck(tx, d.id, checks, now));
    if (recorded?.orderJobId) ordered++;
  }
  // verified domains whose certificate is missing, lapsed or due for renewal (domain-state.ts's
  // rule in SQL), with no order in flight; orderIfNeeded decides again under the row lock
  const needing = await db.$queryRaw<{ id: string }[]>`
    SELECT d.id FROM ocpp_domains d
    WHERE d.dns_state = 'verified'
      AND (d.certificate_not_after IS NULL
        OR d.certificate_not_after <= ${now}
        OR d.certificate_not_before
           + (d.certificate_not_after - d.certificate_not_before) * 2 / 3 <= ${now})
      AND NOT EXISTS (
        SELECT 1 FROM ocpp_domain_orders o WHERE o.domain_id = d.id AND o.status = 'pending')
    LIMIT ${BATCH}`;
  for (const { id } of needing) {
    const jobId = await inTransaction(db, async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM ocpp_domains WHERE id = ${id} FOR UPDATE`;
      if (!locked.length) return null;
      return orderIfNeeded(tx, await tx.ocppDomain.findUniqueOrThrow({ where: { id } }), now);
    });
    if (jobId) ordered++;
  }
  // `ready` checked again: domains with a valid certificate whose last handshake check is old
  // (each handshake outside any transaction, at most 5 s)
  let tlsChecked = 0;
  if (tlsTarget) {
    const stale = await db.$queryRaw<{ id: string }[]>`
      SELECT id FROM ocpp_domains
      WHERE certificate_not_after > ${now}
        AND (tls_checked_at IS NULL
          OR (tls_ready_at IS NOT NULL AND tls_checked_at <= ${new Date(now.getTime() - RECHECK_TLS_READY_MS)})
          OR (tls_ready_at IS NULL AND tls_checked_at <= ${new Date(now.getTime() - RECHECK_TLS_FAILING_MS)}))
      ORDER BY tls_checked_at NULLS FIRST
      LIMIT ${BATCH}`;
    for (const { id } of stale)
      if ((await checkDomainTls(db, id, tlsTarget, now)) !== null) tlsChecked++;
  }
  return { checked: due.length, ordered, tlsChecked };
}
