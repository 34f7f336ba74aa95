import fs from "node:fs";
import tls from "node:tls";
import pg from "pg";
import type { Db } from "../server/db";
import { open } from "../server/lib/secret-box";
import { log } from "../server/log";
import { CERTIFICATE_CHANNEL } from "../server/ocpp-domains/certificate-order";
import type { TlsFiles } from "./http-server";

/** What the gateway serves for one custom domain: its certificate by SNI, and whose it is. */
export type ServedDomain = {
  hostname: string;
  tenantId: number;
  serial: string;
  notAfter: Date;
  context: tls.SecureContext;
};

/** A full reload this often, a safety net for a lost NOTIFY or a dropped LISTEN connection. */
export const FULL_RELOAD_MS = 5 * 60_000;

export type DomainCertificates = Awaited<ReturnType<typeof startDomainCertificates>>;

/**
 * The certificates of custom OCPP domains the gateway serves by SNI (ocpp/README.md, "Custom
 * domains"): every domain with a certificate still valid (a domain whose records went missing
 * keeps its certificate until it lapses), its key opened from the row (sealed under SECRET_KEY,
 * as server/ocpp-domains stores it). Kept in a map that is replaced entry by entry: a handshake
 * picks the context in force at that moment, and a TLS session already open keeps its socket
 * whatever happens to the map after, so a renewal or a delete never drops a connected charger.
 * Reloaded for one hostname on `NOTIFY ocpp_domain_certificates` (sent at commit whenever a
 * certificate is stored or a domain deleted) and in full every `fullReloadMs`.
 *
 * `defaultTls`: the certificate for the service's own names (`ownHosts`) and for handshakes
 * without SNI (a charger dialing an IP address); without it those handshakes fail. A name that is
 * neither the service's nor a served domain (a deleted one, one not yet issued) fails the TLS
 * handshake: nothing is served under a name the service does not hold a certificate for.
 */
export async function startDomainCertificates({
  db,
  databaseUrl,
  defaultTls,
  ownHosts,
  fullReloadMs = FULL_RELOAD_MS,
}: {
  db: Db;
  databaseUrl: string;
  defaultTls: TlsFiles | null;
  ownHosts: readonly string[];
  fullReloadMs?: number;
}) {
  let served = new Map<string, ServedDomain>();
  const own = new Set(ownHosts.map((h) => h.toLowerCase()));
  const defaultContext = defaultTls
    ? tls.createSecureContext({
        cert: fs.readFileSync(defaultTls.certPath),
        key: fs.readFileSync(defaultTls.keyPath),
      })
    : null;
  /** each reload's generation: a slow full reload never overwrites a newer single one */
  let version = 0;
  const touched = new Map<string, number>();

  type Row = {
    hostname: string;
    tenantId: number;
    certificatePem: string | null;
    certificateKey: string | null;
    certificateSerial: string | null;
    certificateNotAfter: Date | null;
  };
  const select = {
    hostname: true,
    tenantId: true,
    certificatePem: true,
    certificateKey: true,
    certificateSerial: true,
    certificateNotAfter: true,
  } as const;

  /** the row's certificate to serve; null when it has none valid; "broken" when it cannot load */
  function toServed(row: Row): ServedDomain | null | "broken" {
    if (!row.certificatePem || !row.certificateKey || !row.certificateNotAfter) return null;
    if (row.certificateNotAfter <= new Date()) return null;
    try {
      return {
        hostname: row.hostname,
        tenantId: row.tenantId,
        serial: row.certificateSerial ?? "",
        notAfter: row.certificateNotAfter,
        context: tls.createSecureContext({
          cert: row.certificatePem,
          key: open(row.certificateKey),
        }),
      };
    } catch (error) {
      // one bad row must not stop every other domain's reload; the name keeps what it had
      log.error("ocpp domains: a certificate could not be loaded", {
        hostname: row.hostname,
        error,
      });
      return "broken";
    }
  }

  /** Reloads one hostname from its row (gone, lapsed or replaced). */
  async function reloadOne(hostname: string) {
    const mine = ++version;
    touched.set(hostname, mine);
    const row = await db.ocppDomain.findUnique({ where: { hostname }, select });
    // a newer reload of the name, or a full one that read after this began, decides instead
    if (touched.get(hostname) !== mine) return;
    const next = row ? toServed(row) : null;
    if (next === "broken") return;
    if (next) served.set(hostname, next);
    else served.delete(hostname);
  }

  /** Reloads every domain: the map is replaced at once (names reloaded meanwhile keep theirs). */
  async function reloadAll() {
    const started = ++version;
    const rows = await db.ocppDomain.findMany({
      where: { certificatePem: { not: null }, certificateNotAfter: { gt: new Date() } },
      select,
    });
    const next = new Map<string, ServedDomain>();
    for (const row of rows) {
      const domain = toServed(row);
      const kept = domain === "broken" ? served.get(row.hostname) : domain;
      if (kept) next.set(row.hostname, kept);
    }
    for (const [hostname, at] of touched) {
      // reloaded before this one read: this read is as fresh, and that reload is done with
      if (at <= started) {
        touched.delete(hostname);
        continue;
      }
      // reloaded (or still reloading) since: that reload decides the name
      const current = served.get(hostname);
      if (current) next.set(hostname, current);
      else next.delete(hostname);
    }
    served = next;
  }

  await reloadAll();

  let listener: pg.Client | null = null;
  let stopped = false;
  async function listen() {
    const client = new pg.Client({ connectionString: databaseUrl });
    client.on("error", (error) => {
      log.warn("ocpp domains: certificate listener failed", { error });
      if (listener === client) listener = null;
      void client.end().catch(() => {});
    });
    client.on("notification", ({ channel, payload }) => {
      if (channel !== CERTIFICATE_CHANNEL || !payload || stopped) return;
      void reloadOne(payload.toLowerCase()).catch((error: unknown) =>
        log.error("ocpp domains: reloading a certificate failed", { hostname: payload, error }),
      );
    });
    await client.connect();
    await client.query(`LISTEN ${CERTIFICATE_CHANNEL}`);
    listener = client;
  }
  await listen();

  const timer = setInterval(() => {
    if (stopped) return;
    // listening again first: what changed while nobody listened, the full reload picks up
    void (listener ? Promise.resolve() : listen())
      .catch((error: unknown) => log.warn("ocpp domains: listening again failed", { error }))
      .then(reloadAll)
      .catch((error: unknown) =>
        log.error("ocpp domains: reloading the certificates failed", { error }),
      );
  }, fullReloadMs);
  timer.unref();

  /** the served domain for a name, while its certificate is valid (lapsed ones go at the full reload) */
  const current = (hostname: string) => {
    const domain = served.get(hostname.toLowerCase().replace(/\.$/, ""));
    return domain && domain.notAfter > new Date() ? domain : undefined;
  };

  return {
    /** the served domain for a hostname (SNI or Host), or undefined */
    domain: current,
    isOwnHost: (hostname: string) => own.has(hostname.toLowerCase().replace(/\.$/, "")),
    /** tls.Server's SNICallback: the domain's context, the default for the service's names */
    SNICallback: (
      servername: string,
      cb: (error: Error | null, ctx?: tls.SecureContext) => void,
    ) => {
      const name = servername.toLowerCase().replace(/\.$/, "");
      const domain = current(name);
      if (domain) return cb(null, domain.context);
      if (defaultContext && own.has(name)) return cb(null, defaultContext);
      cb(new Error(`no certificate for ${name}`));
    },
    defaultContext,
    reloadAll,
    reloadOne,
    close: async () => {
      stopped = true;
      clearInterval(timer);
      await listener?.end().catch(() => {});
      listener = null;
    },
  };
}
