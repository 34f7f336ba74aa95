import crypto from "node:crypto";
import tls from "node:tls";
import { z } from "zod";
import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import { env } from "../env";
import { defineJob, stepBackoff } from "../jobs/define-job";
import { log } from "../log";
import { certificateValid } from "./domain-state";

/** Where the check's handshake goes: a gateway's TLS listener, as chargers reach it. */
export type TlsTarget = { host: string; port: number };

export const defaultTlsTarget = (): TlsTarget => env().ocppDomains.tlsCheck;

/** One handshake's limit (connect and TLS). */
export const TLS_CHECK_TIMEOUT_MS = 5_000;

export type TlsProbe =
  | { ok: true; serial: string; fingerprint256: string }
  | { ok: false; error: string; serial: string | null };

/**
 * A TLS handshake to `target` with `servername` as SNI: what certificate the gateway presents
 * for the name. The chain is not judged here (the check compares the presented certificate with
 * the domain's own, byte for byte through its fingerprint); a handshake the gateway refuses, or
 * none within the timeout, is a failure in words.
 */
export function probeTls(
  target: TlsTarget,
  servername: string,
  timeoutMs = TLS_CHECK_TIMEOUT_MS,
): Promise<TlsProbe> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: TlsProbe) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve(result);
    };
    const socket = tls.connect({
      host: target.host,
      port: target.port,
      servername,
      rejectUnauthorized: false,
      ALPNProtocols: ["http/1.1"],
    });
    socket.setTimeout(timeoutMs, () =>
      finish({ ok: false, serial: null, error: `No TLS handshake within ${timeoutMs} ms.` }),
    );
    socket.once("secureConnect", () => {
      const cert = socket.getPeerX509Certificate();
      if (!cert) return finish({ ok: false, serial: null, error: "No certificate presented." });
      finish({
        ok: true,
        serial: cert.serialNumber.toLowerCase(),
        fingerprint256: cert.fingerprint256,
      });
    });
    socket.once("error", (error: Error) =>
      finish({
        ok: false,
        serial: null,
        error: `The TLS handshake with ${servername} at ${target.host}:${target.port} failed: ${error.message}`,
      }),
    );
  });
}

/**
 * The `ready` check of one domain (server/ocpp-domains/README.md, "Ready"): a handshake to a
 * gateway with the hostname as SNI, outside any transaction, then the result recorded under the
 * domain's row lock: ready (`tls_ready_at`) when the gateway presented exactly the domain's
 * certificate as it stands at recording (a renewal meanwhile makes the check a failure, checked
 * again later), not ready otherwise, with the reason. A read with no effect on the other side:
 * its journal is the result on the row. Returns whether it passed, or null without a domain or
 * a valid certificate to check.
 */
export async function checkDomainTls(
  db: Db,
  domainId: string,
  target: TlsTarget,
  now: Date,
): Promise<boolean | null> {
  const domain = await db.ocppDomain.findUnique({ where: { id: domainId } });
  if (!domain?.certificatePem || !certificateValid(domain, now)) return null;
  const probe = await probeTls(target, domain.hostname);
  return inTransaction(db, async (tx) => {
    const locked = await tx.$queryRaw<{ certificate_pem: string | null }[]>`
      SELECT certificate_pem FROM ocpp_domains WHERE id = ${domainId} FOR UPDATE`;
    const pem = locked[0]?.certificate_pem;
    if (!pem) return null;
    const expected = new crypto.X509Certificate(pem);
    const passed = probe.ok && probe.fingerprint256 === expected.fingerprint256;
    const error = passed
      ? null
      : probe.ok
        ? `The gateway presented certificate ${probe.serial} for ${domain.hostname}, not the domain's ${expected.serialNumber.toLowerCase()} (not loaded yet, or another one).`
        : probe.error;
    await tx.ocppDomain.update({
      where: { id: domainId },
      data: {
        tlsCheckedAt: now,
        tlsReadyAt: passed ? now : null,
        tlsSerial: probe.serial,
        tlsError: error,
      },
    });
    if (!passed) log.warn("ocpp-domains: TLS check failed", { domainId, error });
    return passed;
  });
}

/**
 * The check after a certificate is stored (issue or renewal), a few seconds later so every
 * gateway has reloaded it on the NOTIFY; retried on failure (10 s, 30 s, 1 min, 5 min), after
 * which the sweep's periodic check takes over.
 */
export const TLS_CHECK_DELAY_MS = 2_000;
export const tlsCheckJob = (target: () => TlsTarget = defaultTlsTarget) =>
  defineJob({
    id: "ocpp-domains.tls-check",
    payload: z.object({ domain_id: z.string() }),
    retry: {
      maxAttempts: 5,
      backoff: stepBackoff([10_000, 30_000, 60_000, 5 * 60_000], 5 * 60_000),
    },
    handler: async ({ domain_id }, ctx) => {
      const passed = await checkDomainTls(ctx.db, domain_id, target(), ctx.now());
      if (passed === false) throw new Error("the TLS check did not pass yet");
    },
  });

export const tlsCheckJobDefinition = tlsCheckJob();
