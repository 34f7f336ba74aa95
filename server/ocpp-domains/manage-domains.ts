import { db as defaultDb, type Db, type DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { env } from "../env";
import { DomainError, fieldError, notFound } from "../errors";
import type { OcppDomain } from "../generated/prisma/client";
import { startJobNow } from "../jobs/run-now";
import { newId, randomBase62 } from "../lib/ids";
import { isUniqueViolation } from "../lib/unique-violation";
import { notifyCertificateChanged, orderJobDefinition } from "./certificate-order";
import { checkRecords, dnsResolver, type DnsResolver } from "./dns-records";
import { MAX_DOMAINS_PER_TENANT, type CreateDomainInput, type DomainView } from "./domain-schema";
import { hostnameProblem, normalizeHostname } from "./hostname";
import { presentDomain } from "./present-domain";
import { recordCheck } from "./record-check";

/** The service's own hostnames: a tenant may register none of them nor a name under them. */
export function ownHosts(): string[] {
  const e = env();
  return [
    new URL(e.publicBaseUrl).hostname,
    new URL(e.ocppPublicUrl).hostname,
    e.ocppDomains.cnameTarget,
  ].map((h) => h.toLowerCase().replace(/\.$/, ""));
}

async function present(db: DbTx, domain: OcppDomain, now = new Date()): Promise<DomainView> {
  const latest = await db.ocppDomainOrder.findFirst({
    where: { domainId: domain.id },
    orderBy: { createdAt: "desc" },
  });
  return presentDomain(domain, latest, env().ocppDomains.cnameTarget, now);
}

async function findDomain(db: DbTx, tenantId: number, domainId: string) {
  const domain = await db.ocppDomain.findFirst({ where: { id: domainId, tenantId } });
  if (!domain) throw notFound("ocpp domain");
  return domain;
}

/** Registers a hostname for the tenant; the answer lists the records to add. Nothing is looked up yet. */
export async function registerDomain({
  tenantId,
  input,
  db = defaultDb(),
}: {
  tenantId: number;
  input: CreateDomainInput;
  db?: DbTx;
}): Promise<DomainView> {
  const hostname = normalizeHostname(input.hostname);
  const problem = hostnameProblem(hostname, { ownHosts: ownHosts() });
  if (problem)
    throw fieldError("ocpp_domain_invalid", `The hostname ${problem}.`, [
      { field: "hostname", message: problem, location: "body" },
    ]);
  const held = await db.ocppDomain.findUnique({ where: { hostname } });
  if (held) throw taken(held.tenantId === tenantId ? held.id : null);
  const count = await db.ocppDomain.count({ where: { tenantId } });
  if (count >= MAX_DOMAINS_PER_TENANT)
    throw new DomainError(
      "ocpp_domain_limit",
      `A project has at most ${MAX_DOMAINS_PER_TENANT} OCPP domains; delete one first.`,
      { limit: MAX_DOMAINS_PER_TENANT },
    );
  try {
    const domain = await db.ocppDomain.create({
      data: { id: newId("dom"), tenantId, hostname, verificationToken: randomBase62(32) },
    });
    return await present(db, domain);
  } catch (error) {
    // registered at the same moment by another request (the transaction is aborted: ask nothing more)
    if (isUniqueViolation(error)) throw taken(null);
    throw error;
  }
}

const taken = (ownDomainId: string | null) =>
  new DomainError(
    "ocpp_domain_taken",
    ownDomainId
      ? "This project has registered the hostname already."
      : "The hostname is registered already (one project per hostname).",
    ownDomainId ? { domain_id: ownDomainId } : {},
  );

export async function listDomains({ tenantId, db = defaultDb() }: { tenantId: number; db?: Db }) {
  const domains = await db.ocppDomain.findMany({
    where: { tenantId },
    orderBy: { createdAt: "asc" },
  });
  return { data: await Promise.all(domains.map((d) => present(db, d))) };
}

export async function getDomain(opts: { tenantId: number; domainId: string; db?: Db }) {
  const db = opts.db ?? defaultDb();
  return present(db, await findDomain(db, opts.tenantId, opts.domainId));
}

/**
 * Checks the records now (the lookups outside any transaction), records the result and, once
 * verified, journals the certificate order and starts it without waiting for it.
 */
export async function verifyDomain({
  tenantId,
  domainId,
  db = defaultDb(),
  resolver = dnsResolver(env().ocppDomains.dnsServer),
  now = new Date(),
}: {
  tenantId: number;
  domainId: string;
  db?: Db;
  resolver?: DnsResolver;
  now?: Date;
}): Promise<DomainView> {
  const domain = await findDomain(db, tenantId, domainId);
  const checks = await checkRecords(
    domain.hostname,
    domain.verificationToken,
    env().ocppDomains.cnameTarget,
    resolver,
    now,
  );
  const recorded = await inTransaction(db, (tx) => recordCheck(tx, domain.id, checks, now));
  if (!recorded) throw notFound("ocpp domain");
  if (recorded.orderJobId)
    void startJobNow({ db, definitions: [orderJobDefinition], jobId: recorded.orderJobId });
  return present(db, recorded.domain, now);
}

/**
 * Deletes the domain, its orders and challenge answers. An order in flight finds nothing to
 * record and ends; the CA's own order expires there unused. The certificate is not revoked: its
 * key is deleted with the row.
 */
export async function deleteDomain({
  tenantId,
  domainId,
  db = defaultDb(),
}: {
  tenantId: number;
  domainId: string;
  db?: Db;
}) {
  const domain = await findDomain(db, tenantId, domainId);
  await inTransaction(db, async (tx) => {
    await tx.ocppDomain.deleteMany({ where: { id: domain.id, tenantId } });
    await notifyCertificateChanged(tx, domain.hostname);
  });
  return { id: domain.id, hostname: domain.hostname, deleted: true as const };
}
