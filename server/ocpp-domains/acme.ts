import crypto from "node:crypto";
import fs from "node:fs";
import https from "node:https";
import tls from "node:tls";
import * as acme from "acme-client";
import type { Db } from "../db";
import { env } from "../env";
import { open, seal } from "../lib/secret-box";

/**
 * The ACME side (server/ocpp-domains/README.md, "Certificates"): `acme-client` (npm), the one
 * account the service holds per directory URL, and the settings a test replaces.
 */
export type AcmeConfig = {
  directoryUrl: string;
  /** PEM of CA certificates trusted for the directory's HTTPS besides the system's (a private CA, pebble) */
  caPem: string | null;
  email: string | null;
  /** how acme-client polls a challenge or order until it settles */
  poll: { attempts: number; minMs: number; maxMs: number };
};

/** Each request to the CA ends within this (acme-client's axios has no timeout of its own). */
export const ACME_REQUEST_TIMEOUT_MS = 30_000;

/**
 * The longest one run of an order takes: about a dozen requests and three polls (a challenge, the
 * order, the certificate) of at most 8 reads each. The order job's lease follows, so it lapses
 * only when the runner died, never while a slow CA is still answering.
 */
export const ACME_RUN_BUDGET_MS = 9 * 60_000;

export function defaultAcmeConfig(): AcmeConfig {
  const { acme: settings } = env().ocppDomains;
  return {
    directoryUrl: settings.directoryUrl,
    caPem: settings.caCertPath ? fs.readFileSync(settings.caCertPath, "utf8") : null,
    email: settings.email,
    poll: { attempts: 8, minMs: 1_000, maxMs: 10_000 },
  };
}

let trusted: string | null = null;

/**
 * acme-client makes its requests with one axios instance per process: the extra CA goes on it.
 * Every ACME call of a process goes to the one configured directory, so one setting serves all.
 */
function trust(caPem: string | null) {
  acme.axios.defaults.timeout = ACME_REQUEST_TIMEOUT_MS;
  if (caPem === trusted) return;
  acme.axios.defaults.httpsAgent = caPem
    ? new https.Agent({ ca: [...tls.rootCertificates, caPem], keepAlive: false })
    : undefined;
  trusted = caPem;
}

/** A P-256 key in PEM (PKCS#8): the account's, and each order's certificate key. */
export const newPrivateKey = () =>
  crypto
    .generateKeyPairSync("ec", { namedCurve: "P-256" })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();

/**
 * The client of the service's account at the directory, registering the account on first use.
 * The account key is stored (sealed) before the CA is asked, so a registration whose answer was
 * lost is asked again with the same key, and the CA answers with the same account (RFC 8555
 * 7.3.1: a newAccount with a known key returns that account): the key is the call's idempotency key.
 */
export async function acmeClient(db: Db, config: AcmeConfig): Promise<acme.Client> {
  trust(config.caPem);
  await db.acmeAccount.createMany({
    data: [{ directoryUrl: config.directoryUrl, accountKey: seal(newPrivateKey()) }],
    skipDuplicates: true,
  });
  const account = await db.acmeAccount.findUniqueOrThrow({
    where: { directoryUrl: config.directoryUrl },
  });
  const client = new acme.Client({
    directoryUrl: config.directoryUrl,
    accountKey: open(account.accountKey),
    ...(account.accountUrl && { accountUrl: account.accountUrl }),
    backoffAttempts: config.poll.attempts,
    backoffMin: config.poll.minMs,
    backoffMax: config.poll.maxMs,
  });
  if (!account.accountUrl) {
    await client.createAccount({
      termsOfServiceAgreed: true,
      ...(config.email && { contact: [`mailto:${config.email}`] }),
    });
    await db.acmeAccount.update({
      where: { directoryUrl: config.directoryUrl },
      data: { accountUrl: client.getAccountUrl() },
    });
  }
  return client;
}
