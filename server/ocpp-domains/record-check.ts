import type { DbTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { type OcppDomain } from "../generated/prisma/client";
import { newOrder } from "./certificate-order";
import type { DnsChecks } from "./dns-records";
import { needsCertificate } from "./domain-state";

/**
 * Records a DNS check made outside any transaction (server/ocpp-domains/README.md, "States"),
 * under the domain's row lock, and journals a certificate order when the domain now needs one.
 * Returns the new order's job id (for the caller to start after its commit), or null.
 * - all records found: `verified` (again);
 * - a record missing or wrong: `pending` stays pending; `verified` becomes `missing` (flagged, the
 *   certificate still served until it lapses);
 * - a lookup that failed (a timeout, SERVFAIL) decides nothing: the state stays, the check is shown.
 */
export async function recordCheck(
  tx: DbTx,
  domainId: string,
  checks: DnsChecks,
  now: Date,
): Promise<{ domain: OcppDomain; orderJobId: string | null } | null> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM ocpp_domains WHERE id = ${domainId} FOR UPDATE`;
  if (!locked.length) return null;
  const before = await tx.ocppDomain.findUniqueOrThrow({ where: { id: domainId } });
  const inconclusive = checks.records.some((r) => r.result === "error");
  let dns: Prisma.OcppDomainUpdateInput = {};
  if (checks.ok)
    dns = {
      dnsState: "verified",
      dnsMissingSince: null,
      ...(before.dnsState !== "verified" && { dnsVerifiedAt: now }),
    };
  else if (!inconclusive && before.dnsState === "verified")
    dns = { dnsState: "missing", dnsMissingSince: now };
  const domain = await tx.ocppDomain.update({
    where: { id: domainId },
    data: { ...dns, dnsChecks: checks, dnsCheckedAt: now },
  });
  return { domain, orderJobId: await orderIfNeeded(tx, domain, now) };
}

/**
 * Journals an order when the domain (row locked by the caller) needs a certificate at `now` and
 * has none in flight, and the last one did not fail within a day (the job's own retries come
 * first; after they ran out the sweep tries again daily).
 */
export async function orderIfNeeded(
  tx: DbTx,
  domain: OcppDomain,
  now: Date,
): Promise<string | null> {
  const reason = needsCertificate(domain, now);
  if (!reason) return null;
  const latest = await tx.ocppDomainOrder.findFirst({
    where: { domainId: domain.id },
    orderBy: { createdAt: "desc" },
  });
  if (latest?.status === "pending") return null;
  if (
    latest?.status === "failed" &&
    latest.completedAt &&
    now.getTime() - latest.completedAt.getTime() < 24 * 3_600_000
  )
    return null;
  return (await newOrder(tx, domain.id, reason)).jobId;
}
