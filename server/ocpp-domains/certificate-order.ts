import crypto from "node:crypto";
import * as acme from "acme-client";
import { z } from "zod";
import type { Db, DbTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { type OcppDomain, type OcppDomainOrder } from "../generated/prisma/client";
import { defineJob, stepBackoff, type JobContext } from "../jobs/define-job";
import { enqueue } from "../jobs/enqueue";
import { recordOutcome } from "../jobs/external-call";
import { newId } from "../lib/ids";
import { open, seal } from "../lib/secret-box";
import { log } from "../log";
import {
  ACME_RUN_BUDGET_MS,
  acmeClient,
  defaultAcmeConfig,
  newPrivateKey,
  type AcmeConfig,
} from "./acme";
import { TLS_CHECK_DELAY_MS, tlsCheckJobDefinition } from "./tls-check";

/**
 * One ACME certificate order for a domain, a journaled external call (server/jobs/README.md,
 * "Calls to other systems"): the order row (`ocpp_domain_orders`, its id the key every retry
 * shares) and this job are written in one transaction; the job talks to the CA outside any
 * transaction, stores the CA's order URL as soon as it has one so a retry follows the same
 * order, and records the outcome fenced by its lease. A failure is retried on the backoff with
 * its error on the row (`error`, `next_try_at`); an order the CA declared invalid (a failed
 * challenge) is replaced by a new CA order at the next try, one still in flight is followed.
 * The certificate key is made with the row and kept (sealed) for every try of it.
 */
export const ORDER_BACKOFF = stepBackoff(
  [60_000, 5 * 60_000, 15 * 60_000, 3_600_000],
  6 * 3_600_000,
);
export const ORDER_MAX_TRIES = 10;

export const orderJob = (acmeConfig: () => AcmeConfig = defaultAcmeConfig) =>
  defineJob({
    id: "ocpp-domains.order",
    payload: z.object({ order_id: z.string() }),
    retry: { maxAttempts: ORDER_MAX_TRIES, backoff: ORDER_BACKOFF },
    leaseMs: ACME_RUN_BUDGET_MS + 60_000,
    handler: ({ order_id }, ctx) => runOrder(order_id, ctx, acmeConfig()),
    // The last try's runner died: the order ends failed; the sweep orders again later.
    onFailed: async (tx, { order_id }, failure) => {
      await tx.ocppDomainOrder.updateMany({
        where: { id: order_id, status: "pending" },
        data: {
          status: "failed",
          error: { kind: "uncertain", message: failure.error },
          nextTryAt: null,
          completedAt: new Date(),
        },
      });
    },
  });

export const orderJobDefinition = orderJob();

/**
 * Journals an order in `tx` (the domain row locked by the caller): the row with its key, and the
 * job. Nothing is called here. At most one order is pending per domain (a partial unique index).
 */
export async function newOrder(
  tx: DbTx,
  domainId: string,
  reason: "issue" | "renew",
): Promise<OcppDomainOrder> {
  const id = newId("dor");
  const order = await tx.ocppDomainOrder.create({
    data: {
      id,
      domainId,
      reason,
      privateKey: seal(newPrivateKey()),
      jobId: `${orderJobDefinition.id}:${id}`,
    },
  });
  await enqueue(tx, orderJobDefinition, { order_id: id }, { key: id });
  return order;
}

/**
 * Told (at commit) whenever a domain's certificate is stored or the domain deleted, with the
 * hostname: the channel the gateways will listen on to reload what they serve by SNI.
 */
export const CERTIFICATE_CHANNEL = "ocpp_domain_certificates";

export async function notifyCertificateChanged(tx: DbTx, hostname: string) {
  await tx.$executeRaw`SELECT pg_notify(${CERTIFICATE_CHANNEL}, ${hostname})`;
}

class OrderInvalid extends Error {}

export async function runOrder(orderId: string, ctx: JobContext, config: AcmeConfig) {
  const order = await ctx.db.ocppDomainOrder.findUnique({
    where: { id: orderId },
    include: { domain: true },
  });
  if (!order || order.status !== "pending") return;
  if (order.domain.dnsState !== "verified") {
    await settle(ctx, order, {
      status: "canceled",
      error: {
        kind: "records_missing",
        message:
          "The domain's DNS records are no longer in place; no certificate is ordered until they are.",
      },
    });
    return;
  }
  // updateMany: a domain deleted meanwhile took its orders with it, and this records nothing
  await ctx.db.ocppDomainOrder.updateMany({
    where: { id: order.id, status: "pending" },
    data: { tries: { increment: 1 } },
  });
  let issued: { pem: string };
  try {
    issued = await obtain(ctx.db, order, order.domain, config);
  } catch (error) {
    const invalid = error instanceof OrderInvalid;
    const message = error instanceof Error ? error.message : String(error);
    log.warn("ocpp-domains: ACME order failed", { order: order.id, invalid, message });
    await recordOutcome(
      ctx.db,
      ctx,
      { ok: false, error: message, retry: true },
      async (tx, next) => {
        await tx.ocppDomainOrder.updateMany({
          where: { id: order.id, status: "pending" },
          data: {
            error: { kind: invalid ? "order_invalid" : "uncertain", message },
            // an invalid CA order is done with: the next try makes a new one
            ...(invalid && { orderUrl: null }),
            ...(next.status === "queued"
              ? { nextTryAt: next.runAt }
              : { status: "failed", nextTryAt: null, completedAt: ctx.now() }),
          },
        });
      },
    );
    return;
  }
  const x509 = new crypto.X509Certificate(issued.pem);
  await recordOutcome(ctx.db, ctx, { ok: true }, async (tx) => {
    const still = await tx.$queryRaw<{ status: string }[]>`
      SELECT status FROM ocpp_domain_orders WHERE id = ${order.id} FOR UPDATE`;
    if (still[0]?.status !== "pending") return;
    await tx.ocppDomain.update({
      where: { id: order.domainId },
      data: {
        certificatePem: issued.pem,
        certificateKey: order.privateKey,
        certificateSerial: x509.serialNumber.toLowerCase(),
        certificateNotBefore: new Date(x509.validFrom),
        certificateNotAfter: new Date(x509.validTo),
        // a first certificate (or one after a lapse) is not ready until a handshake shows it;
        // a renewal keeps the domain ready while its check runs (the old one is still served)
        ...(order.reason === "issue" && { tlsReadyAt: null }),
      },
    });
    await tx.ocppDomainOrder.update({
      where: { id: order.id },
      data: { status: "succeeded", nextTryAt: null, completedAt: ctx.now() },
    });
    await tx.acmeChallenge.deleteMany({ where: { domainId: order.domainId } });
    await notifyCertificateChanged(tx, order.domain.hostname);
    await enqueue(
      tx,
      tlsCheckJobDefinition,
      { domain_id: order.domainId },
      { key: order.id, runAt: new Date(ctx.now().getTime() + TLS_CHECK_DELAY_MS) },
    );
  });
}

/** The CA's exchange, from wherever the CA order stands, to the issued chain (PEM). */
async function obtain(db: Db, row: OcppDomainOrder, domain: OcppDomain, config: AcmeConfig) {
  const client = await acmeClient(db, config);
  let order: acme.Order;
  if (row.orderUrl) {
    order = await client.getOrder({ url: row.orderUrl } as acme.Order);
    if (order.status === "invalid") throw new OrderInvalid(await describeInvalid(client, order));
  } else {
    order = await client.createOrder({ identifiers: [{ type: "dns", value: domain.hostname }] });
    await db.ocppDomainOrder.updateMany({
      where: { id: row.id, status: "pending" },
      data: { orderUrl: order.url },
    });
  }
  try {
    if (order.status === "pending") {
      for (const authz of await client.getAuthorizations(order)) {
        if (authz.status === "valid") continue;
        const challenge = authz.challenges.find((c) => c.type === "http-01");
        if (!challenge) throw new OrderInvalid("The CA offered no HTTP-01 challenge.");
        const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
        await db.acmeChallenge.upsert({
          where: { token: challenge.token },
          create: { token: challenge.token, domainId: domain.id, keyAuthorization },
          update: { keyAuthorization },
        });
        if (challenge.status === "pending") await client.completeChallenge(challenge);
        await client.waitForValidStatus(challenge);
      }
      // `ready` counts as settled here; the answer lacks the order's URL, so keep it
      order = { ...(await client.waitForValidStatus(order)), url: order.url };
    }
    if (order.status === "ready") {
      const [, csr] = await acme.crypto.createCsr(
        { commonName: domain.hostname, altNames: [domain.hostname] },
        open(row.privateKey),
      );
      order = await client.finalizeOrder(order, csr);
    }
    return { pem: await client.getCertificate(order) };
  } catch (error) {
    const now = await client.getOrder(order).catch(() => null);
    if (now?.status === "invalid") throw new OrderInvalid(await describeInvalid(client, now));
    throw error;
  }
}

/** What made the CA give up the order: the failed challenge's error, in the CA's words. */
async function describeInvalid(client: acme.Client, order: acme.Order): Promise<string> {
  const authzs = await client.getAuthorizations(order).catch(() => []);
  for (const authz of authzs) {
    for (const c of authz.challenges) {
      const error = (c as { error?: { detail?: string; type?: string } }).error;
      if (error)
        return `The CA refused the ${c.type} challenge: ${error.detail ?? error.type ?? "no detail"}`;
    }
  }
  return "The CA declared the order invalid.";
}

/** Ends the order (and the job) with `outcome`, fenced by the lease. */
async function settle(
  ctx: JobContext,
  order: OcppDomainOrder,
  outcome: { status: "canceled" | "failed"; error: Prisma.InputJsonObject },
) {
  await recordOutcome(ctx.db, ctx, { ok: true }, async (tx) => {
    await tx.ocppDomainOrder.updateMany({
      where: { id: order.id, status: "pending" },
      data: { ...outcome, nextTryAt: null, completedAt: ctx.now() },
    });
  });
}
