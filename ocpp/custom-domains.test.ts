import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RPCClient } from "ocpp-rpc";
import WebSocket from "ws";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../server/db";
import { inTransaction } from "../server/db/retry";
import { env } from "../server/env";
import { enqueue } from "../server/jobs/enqueue";
import { runJobsNow } from "../server/jobs/run-now";
import { seal } from "../server/lib/secret-box";
import { notifyCertificateChanged } from "../server/ocpp-domains/certificate-order";
import { sweepDomains } from "../server/ocpp-domains/domain-sweep";
import { checkDomainTls, probeTls, tlsCheckJob } from "../server/ocpp-domains/tls-check";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { selfSignedCertificate } from "../testing/certificates";
import { aFreePort, spawnGateway } from "../testing/gateway-process";
import { aLiveGateway } from "../testing/live-gateway";
import { waitUntil } from "../testing/ocpp";
import { strictModeValidators } from "./protocol/validators";

/**
 * Custom OCPP domains at the gateway (ocpp/README.md, "Custom domains"): its own TLS listener
 * picks each domain's certificate by SNI, reloads it on the NOTIFY without dropping connected
 * chargers, takes only Basic auth over TLS (security profile 2) and only the domain's own
 * project's stations; `ready` comes from a real handshake with the name. The certificates here
 * are throwaway self-signed ones stored as server/ocpp-domains stores an issued one (sealed key,
 * serial, validity) and announced with its NOTIFY; the ACME side is server/ocpp-domains's tests.
 */
const OWN_HOST = "gw.chargecloud-test.net";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cp-domains-"));
const own = selfSignedCertificate(fs.mkdtempSync(path.join(dir, "own-")), OWN_HOST);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const gw = aLiveGateway({ domainTls: { defaultTls: own, ownHosts: [OWN_HOST] } });

let n = 0;
const aHostname = () => `ocpp.brand-${process.pid}-${++n}-${Date.now()}.com`;

/** A certificate for `hostname` (self-signed, a day), as PEM strings. */
function aCertificate(hostname: string) {
  const files = selfSignedCertificate(fs.mkdtempSync(path.join(dir, "c-")), hostname);
  return {
    cert: fs.readFileSync(files.certPath, "utf8"),
    key: fs.readFileSync(files.keyPath, "utf8"),
  };
}

/**
 * Stores `certificate` on the domain as an issued one (server/ocpp-domains/certificate-order.ts
 * records it the same way) with the NOTIFY the gateways listen on, and waits until the gateway
 * serves it.
 */
async function store(
  domain: { id: string; hostname: string },
  certificate: { cert: string; key: string },
) {
  const x509 = new crypto.X509Certificate(certificate.cert);
  await inTransaction(db(), async (tx) => {
    await tx.ocppDomain.update({
      where: { id: domain.id },
      data: {
        dnsState: "verified",
        certificatePem: certificate.cert,
        certificateKey: seal(certificate.key),
        certificateSerial: x509.serialNumber.toLowerCase(),
        certificateNotBefore: new Date(x509.validFrom),
        certificateNotAfter: new Date(x509.validTo),
      },
    });
    await notifyCertificateChanged(tx, domain.hostname);
  });
  await waitUntil(
    () => gw.certificates?.domain(domain.hostname)?.serial === x509.serialNumber.toLowerCase(),
  );
  return x509;
}

/** A project with a custom domain whose certificate the gateway serves, and a station of it. */
async function aServedDomain() {
  const t = await aTenantWithKey();
  const hostname = aHostname();
  const res = await call("POST", `/v1/tenants/${t.tenantId}/ocpp-domains`, {
    key: t.key,
    body: { hostname },
    idempotencyKey: idem(),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const domain = res.body as { id: string; hostname: string };
  const certificate = aCertificate(hostname);
  const x509 = await store(domain, certificate);
  const password = `pw-${crypto.randomBytes(12).toString("hex")}`;
  const station = await aStationWithPassword(t, password);
  const url = `/v1/tenants/${t.tenantId}/ocpp-domains/${domain.id}`;
  return {
    ...t,
    domain,
    certificate,
    x509,
    station,
    password,
    url,
    get: async () => (await call("GET", url, { key: t.key })).body,
  };
}

/** The custom hostname resolved to the gateway's loopback listener (no /etc/hosts). */
const toLoopback = (
  _hostname: string,
  options: { all?: boolean },
  cb: (...args: unknown[]) => void,
) => (options.all ? cb(null, [{ address: "127.0.0.1", family: 4 }]) : cb(null, "127.0.0.1", 4));

/**
 * A real charger (ocpp-rpc, strict mode) dialing `wss://<hostname>:<port>/ocpp` (SNI: hostname),
 * trusting only `ca`.
 */
function aDomainCharger(hostname: string, identity: string, password: string, ca: string) {
  return new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
    endpoint: `wss://${hostname}:${gw.domainTlsPort}/ocpp`,
    identity,
    password,
    protocols: ["ocpp2.0.1"],
    strictMode: true,
    strictModeValidators,
    reconnect: false,
    callTimeoutMs: 10_000,
    wsOpts: { ca, lookup: toLoopback },
  });
}

/** The handshake's HTTP status when the gateway refuses the upgrade (ws's unexpected-response). */
function upgradeStatus(
  url: string,
  identity: string,
  password: string,
  options: WebSocket.ClientOptions = {},
) {
  return new Promise<number>((resolve, reject) => {
    const basic = Buffer.from(`${identity}:${password}`).toString("base64");
    const ws = new WebSocket(`${url}/${encodeURIComponent(identity)}`, ["ocpp2.0.1"], {
      ...options,
      headers: { authorization: `Basic ${basic}`, ...options.headers },
    });
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on("open", () => {
      resolve(101);
      ws.terminate();
    });
    ws.on("error", reject);
  });
}

const tlsTarget = () => ({ host: "127.0.0.1", port: gw.domainTlsPort! });

describe("the gateway's TLS listener for custom domains", () => {
  it("serves each domain's certificate by SNI, the default one for the service's name, nothing for other names", async () => {
    const d = await aServedDomain();
    const probe = await probeTls(tlsTarget(), d.domain.hostname);
    expect(probe).toMatchObject({ ok: true, serial: d.x509.serialNumber.toLowerCase() });
    const ownProbe = await probeTls(tlsTarget(), OWN_HOST);
    expect(ownProbe).toMatchObject({
      ok: true,
      serial: new crypto.X509Certificate(fs.readFileSync(own.certPath)).serialNumber.toLowerCase(),
    });
    // records gone (flagged `records_missing`): still served until the certificate lapses
    await inTransaction(db(), async (tx) => {
      await tx.ocppDomain.update({ where: { id: d.domain.id }, data: { dnsState: "missing" } });
      await notifyCertificateChanged(tx, d.domain.hostname);
    });
    await gw.certificates!.reloadAll();
    expect(await probeTls(tlsTarget(), d.domain.hostname)).toMatchObject({
      ok: true,
      serial: d.x509.serialNumber.toLowerCase(),
    });
    // a name the service holds no certificate for: the handshake fails
    expect(await probeTls(tlsTarget(), "ocpp.nobody-registered-this.com")).toMatchObject({
      ok: false,
    });
  });

  it("security profile 2: a station of the project connects with its password over wss:// with SNI", async () => {
    const d = await aServedDomain();
    const charger = aDomainCharger(
      d.domain.hostname,
      d.station.name,
      d.password,
      d.certificate.cert,
    );
    await charger.connect();
    await expect(charger.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
    await charger.close({ force: true });
    // a charger that trusts something else refuses the domain's certificate
    await expect(
      aDomainCharger(
        d.domain.hostname,
        d.station.name,
        d.password,
        fs.readFileSync(own.certPath, "utf8"),
      ).connect(),
    ).rejects.toThrow();
  });

  it("refuses a wrong password (401) and a station of another project on the name (403), even with its right password", async () => {
    const d = await aServedDomain();
    const url = `wss://${d.domain.hostname}:${gw.domainTlsPort}/ocpp`;
    const opts = { ca: d.certificate.cert, lookup: toLoopback as never };
    expect(await upgradeStatus(url, d.station.name, "wrong-password-0001", opts)).toBe(401);
    const other = await aTenantWithKey();
    const stranger = await aStationWithPassword(other, "stranger-password-01");
    expect(await upgradeStatus(url, stranger.name, "stranger-password-01", opts)).toBe(403);
    await expect(
      aDomainCharger(
        d.domain.hostname,
        stranger.name,
        "stranger-password-01",
        d.certificate.cert,
      ).connect(),
    ).rejects.toThrow();
    // the same through the full (scrypt) check, without the stored verifier
    await db().station.update({ where: { id: stranger.id }, data: { passwordVerifier: null } });
    expect(await upgradeStatus(url, stranger.name, "stranger-password-01", opts)).toBe(403);
    // the same stranger on the service's own address is welcome
    expect(await upgradeStatus(gw.url, stranger.name, "stranger-password-01")).toBe(101);
    // and the project's own station with its password is accepted on the name
    expect(await upgradeStatus(url, d.station.name, d.password, opts)).toBe(101);
  });

  it("on the plain listener a custom domain's Host takes TLS: refused without, accepted from a TLS proxy (X-Forwarded-Proto), still only its project", async () => {
    const d = await aServedDomain();
    const host = { host: d.domain.hostname };
    expect(await upgradeStatus(gw.url, d.station.name, d.password, { headers: host })).toBe(403);
    const proxied = { ...host, "x-forwarded-proto": "https" };
    expect(await upgradeStatus(gw.url, d.station.name, d.password, { headers: proxied })).toBe(101);
    const other = await aTenantWithKey();
    const stranger = await aStationWithPassword(other, "stranger-password-02");
    expect(
      await upgradeStatus(gw.url, stranger.name, "stranger-password-02", { headers: proxied }),
    ).toBe(403);
  });

  it("a renewed certificate is served to new connections while connected chargers keep their sockets", async () => {
    const d = await aServedDomain();
    const before = aDomainCharger(
      d.domain.hostname,
      d.station.name,
      d.password,
      d.certificate.cert,
    );
    await before.connect();
    let closed = false;
    before.on("close", () => (closed = true));
    const renewed = aCertificate(d.domain.hostname);
    const x509 = await store(d.domain, renewed);
    expect(x509.serialNumber).not.toBe(d.x509.serialNumber);
    // the old socket is still the station's and answers
    await expect(before.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
    expect(closed).toBe(false);
    // a new connection sees the new certificate: one trusting only the old one is refused
    await expect(
      aDomainCharger(d.domain.hostname, d.station.name, d.password, d.certificate.cert).connect(),
    ).rejects.toThrow();
    const probe = await probeTls(tlsTarget(), d.domain.hostname);
    expect(probe).toMatchObject({ ok: true, serial: x509.serialNumber.toLowerCase() });
    const after = aDomainCharger(d.domain.hostname, d.station.name, d.password, renewed.cert);
    await after.connect();
    await expect(after.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
    // the newer connection replaces the old one, as any reconnect does
    await waitUntil(() => closed);
    await after.close({ force: true });
  });
});

describe("ready and connection_url", () => {
  it("ready is false until a handshake with the name presents the certificate; then the template and the stations' connection_url", async () => {
    const d = await aServedDomain();
    const stationUrl = `/v1/tenants/${d.tenantId}/stations/${d.station.id}`;
    const serviceUrl = `${env().ocppPublicUrl}/ocpp/${d.station.name}`;
    expect(await d.get()).toMatchObject({
      status: "certificate_issued",
      ready: false,
      connection_url_template: null,
      tls_check: { checked_at: null, ready_at: null },
    });
    expect((await call("GET", stationUrl, { key: d.key })).body.connection_url).toBe(serviceUrl);
    // a check against a port where no gateway listens fails, in words, and stays not ready
    expect(
      await checkDomainTls(db(), d.domain.id, { host: "127.0.0.1", port: 1 }, new Date()),
    ).toBe(false);
    const failed = await d.get();
    expect(failed.ready).toBe(false);
    expect(failed.tls_check.error).toMatch(/TLS handshake .* failed/);
    // the check job (as run after an issue or a renewal) against the gateway's TLS listener
    const job = tlsCheckJob(tlsTarget);
    await inTransaction(db(), (tx) => enqueue(tx, job, { domain_id: d.domain.id }));
    expect(await runJobsNow({ db: db(), definitions: [job], now: new Date() })).toBe(1);
    const ready = await d.get();
    expect(ready).toMatchObject({
      ready: true,
      connection_url_template: `wss://${d.domain.hostname}/ocpp/{station_name}`,
      tls_check: { serial: d.x509.serialNumber.toLowerCase(), error: null },
    });
    const custom = `wss://${d.domain.hostname}/ocpp/${d.station.name}`;
    expect((await call("GET", stationUrl, { key: d.key })).body.connection_url).toBe(custom);
    const list = await call("GET", `/v1/tenants/${d.tenantId}/stations`, { key: d.key });
    expect(list.body.data.map((s: { connection_url: string }) => s.connection_url)).toEqual([
      custom,
    ]);
    // another project's stations keep the service's URL
    const other = await aTenantWithKey();
    const theirs = await aStationWithPassword(other, "other-password-0001");
    const read = await call("GET", `/v1/tenants/${other.tenantId}/stations/${theirs.id}`, {
      key: other.key,
    });
    expect(read.body.connection_url).toBe(`${env().ocppPublicUrl}/ocpp/${theirs.name}`);
    // the certificate lapses: not ready, the stations fall back to the service's URL
    await db().ocppDomain.update({
      where: { id: d.domain.id },
      data: { certificateNotAfter: new Date(Date.now() - 1_000) },
    });
    expect(await d.get()).toMatchObject({ ready: false, connection_url_template: null });
    expect((await call("GET", stationUrl, { key: d.key })).body.connection_url).toBe(serviceUrl);
  });

  it("a check that meets another certificate under the name (not reloaded yet) is not ready", async () => {
    const d = await aServedDomain();
    expect(await checkDomainTls(db(), d.domain.id, tlsTarget(), new Date())).toBe(true);
    // the row holds a new certificate the gateway has not loaded (no NOTIFY)
    const renewed = aCertificate(d.domain.hostname);
    const next = new crypto.X509Certificate(renewed.cert);
    await db().ocppDomain.update({
      where: { id: d.domain.id },
      data: {
        certificatePem: renewed.cert,
        certificateKey: seal(renewed.key),
        certificateSerial: next.serialNumber.toLowerCase(),
      },
    });
    expect(await checkDomainTls(db(), d.domain.id, tlsTarget(), new Date())).toBe(false);
    const body = await d.get();
    expect(body.ready).toBe(false);
    expect(body.tls_check.serial).toBe(d.x509.serialNumber.toLowerCase());
    expect(body.tls_check.error).toMatch(/not the domain's/);
    // the gateway's periodic full reload (the safety net for a lost NOTIFY) picks the row up
    await gw.certificates!.reloadAll();
    expect(await checkDomainTls(db(), d.domain.id, tlsTarget(), new Date())).toBe(true);
    expect((await d.get()).tls_check.serial).toBe(next.serialNumber.toLowerCase());
    // a row whose key does not fit its certificate is logged and skipped: the name keeps its own
    await db().ocppDomain.update({
      where: { id: d.domain.id },
      data: { certificateKey: seal(d.certificate.key) },
    });
    await gw.certificates!.reloadAll();
    await gw.certificates!.reloadOne(d.domain.hostname);
    expect(gw.certificates!.domain(d.domain.hostname)?.serial).toBe(
      next.serialNumber.toLowerCase(),
    );
    expect(await probeTls(tlsTarget(), d.domain.hostname)).toMatchObject({ ok: true });
  });

  it("the sweep checks the TLS of served domains whose check is due, and not again before its time", async () => {
    const d = await aServedDomain();
    // DNS lookups that decide nothing: only the TLS part of the sweep matters here
    const silent = {
      resolveCname: () => Promise.reject(Object.assign(new Error("timeout"), { code: "ETIMEOUT" })),
      resolveTxt: () => Promise.reject(Object.assign(new Error("timeout"), { code: "ETIMEOUT" })),
    };
    const now = new Date();
    const first = await sweepDomains(db(), silent, now, tlsTarget());
    expect(first.tlsChecked).toBeGreaterThanOrEqual(1);
    expect(await d.get()).toMatchObject({
      ready: true,
      tls_check: { checked_at: now.toISOString() },
    });
    // ready, checked a minute ago: not due (30 minutes)
    await sweepDomains(db(), silent, new Date(now.getTime() + 60_000), tlsTarget());
    expect((await d.get()).tls_check.checked_at).toBe(now.toISOString());
    const later = new Date(now.getTime() + 31 * 60_000);
    await sweepDomains(db(), silent, later, tlsTarget());
    expect((await d.get()).tls_check.checked_at).toBe(later.toISOString());
  });
});

describe("deleting a domain while chargers are connected", () => {
  it("connected chargers keep their socket; new handshakes on the name are refused; stations fall back", async () => {
    const d = await aServedDomain();
    expect(await checkDomainTls(db(), d.domain.id, tlsTarget(), new Date())).toBe(true);
    const charger = aDomainCharger(
      d.domain.hostname,
      d.station.name,
      d.password,
      d.certificate.cert,
    );
    await charger.connect();
    let closed = false;
    charger.on("close", () => (closed = true));
    expect((await call("DELETE", d.url, { key: d.key })).status).toBe(200);
    await waitUntil(() => gw.certificates?.domain(d.domain.hostname) === undefined);
    // still connected, still answered
    await expect(charger.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
    expect(closed).toBe(false);
    // a new handshake with the name fails at TLS: the gateway holds no certificate for it
    await expect(
      aDomainCharger(d.domain.hostname, d.station.name, d.password, d.certificate.cert).connect(),
    ).rejects.toThrow();
    expect(await probeTls(tlsTarget(), d.domain.hostname)).toMatchObject({ ok: false });
    const station = await call("GET", `/v1/tenants/${d.tenantId}/stations/${d.station.id}`, {
      key: d.key,
    });
    expect(station.body.connection_url).toBe(`${env().ocppPublicUrl}/ocpp/${d.station.name}`);
    await charger.close({ force: true });
  });
});

describe("the ocpp process (ocpp/main.ts) with OCPP_TLS_PORT", () => {
  it("listens with TLS by SNI, reloads on the NOTIFY, and lets the project's charger in", async () => {
    const d = await aServedDomain();
    const port = await aFreePort();
    const processGateway = await spawnGateway({
      OCPP_TLS_PORT: String(port),
      OCPP_TLS_CERT: own.certPath,
      OCPP_TLS_KEY: own.keyPath,
      OCPP_DOMAINS_CNAME_TARGET: OWN_HOST,
    });
    try {
      const target = { host: "127.0.0.1", port };
      expect(await probeTls(target, d.domain.hostname)).toMatchObject({
        ok: true,
        serial: d.x509.serialNumber.toLowerCase(),
      });
      expect(await probeTls(target, OWN_HOST)).toMatchObject({ ok: true });
      expect(await probeTls(target, "ocpp.nobody-registered-this.com")).toMatchObject({
        ok: false,
      });
      // a renewal reaches the process through its LISTEN
      const renewed = aCertificate(d.domain.hostname);
      const x509 = await store(d.domain, renewed);
      await waitUntil(
        async () =>
          (await probeTls(target, d.domain.hostname)).serial === x509.serialNumber.toLowerCase(),
      );
      const charger = new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
        endpoint: `wss://${d.domain.hostname}:${port}/ocpp`,
        identity: d.station.name,
        password: d.password,
        protocols: ["ocpp2.0.1"],
        strictMode: true,
        strictModeValidators,
        reconnect: false,
        wsOpts: { ca: renewed.cert, lookup: toLoopback },
      });
      await charger.connect();
      await expect(charger.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
      await charger.close({ force: true });
    } finally {
      await processGateway.kill("SIGTERM");
    }
  });
});
