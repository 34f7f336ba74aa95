import crypto from "node:crypto";
import http from "node:http";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { env } from "../env";
import { runJobsNow, startedJobsSettled } from "../jobs/run-now";
import { open } from "../lib/secret-box";
import { call, idem } from "../../testing/api";
import { RPCClient } from "ocpp-rpc";
import { strictModeValidators } from "../../ocpp/protocol/validators";
import { aStationWithPassword, aTenantWithKey } from "../../testing/builders";
import { aDnsZone } from "../../testing/dns-zone";
import { freePort, startPebble } from "../../testing/pebble";
import type { AcmeConfig } from "./acme";
import { CERTIFICATE_CHANNEL, orderJob } from "./certificate-order";
import { dnsResolver } from "./dns-records";
import { sweepDomains } from "./domain-sweep";
import { tlsCheckJob } from "./tls-check";

// One DNS server, one HTTP-01 responder (the gateway's own handler) and one pebble for the file,
// all before the configuration is first read: the routes use the configured resolver and CA.
const TARGET = "gw.chargecloud-test.net";
const zone = await aDnsZone();
zone.set(TARGET, { A: "127.0.0.1" });
const httpPort = await freePort();
const pebble = await startPebble({ dnsServer: zone.server, httpPort });
process.env.OCPP_DOMAINS_CNAME_TARGET = TARGET;
process.env.OCPP_DOMAINS_DNS_SERVER = zone.server;
process.env.ACME_DIRECTORY_URL = pebble.directoryUrl;
process.env.ACME_CA_CERT = pebble.caPath;
// pebble's HTTP-01 requests reach the gateway's own ACME_HTTP_PORT listener (imported only now:
// its imports read the configuration), unless a test switches it off
const gatewayListener = (await import("../../ocpp/http-server")).createAcmeChallengeServer(db());
let challengesAnswered = true;
const responder = http.createServer((req, res) => {
  if (!challengesAnswered) return void res.writeHead(404).end();
  gatewayListener.emit("request", req, res);
});
await new Promise<void>((resolve) => responder.listen(httpPort, "127.0.0.1", resolve));

afterAll(async () => {
  await startedJobsSettled();
  await pebble.close();
  await zone.close();
  await new Promise((resolve) => responder.close(resolve));
});

const acmeConfig: AcmeConfig = {
  directoryUrl: pebble.directoryUrl,
  caPem: pebble.caPem,
  email: null,
  poll: { attempts: 10, minMs: 100, maxMs: 1_000 },
};
const resolver = dnsResolver(zone.server);
/** The order jobs due at `now`, run through the kernel against pebble. */
const runOrders = (now: Date) =>
  runJobsNow({ db: db(), definitions: [orderJob(() => acmeConfig)], now });

let n = 0;
const aHostname = () => `ocpp.brand-${process.pid}-${++n}-${Date.now()}.com`;

async function aDomain(hostname = aHostname()) {
  const t = await aTenantWithKey();
  const res = await call("POST", `/v1/tenants/${t.tenantId}/ocpp-domains`, {
    key: t.key,
    body: { hostname },
    idempotencyKey: idem(),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const domain = res.body as {
    id: string;
    hostname: string;
    records: { type: string; name: string; value: string }[];
  };
  const url = `/v1/tenants/${t.tenantId}/ocpp-domains/${domain.id}`;
  return {
    ...t,
    domain,
    url,
    get: async () => (await call("GET", url, { key: t.key })).body,
    verify: () => call("POST", `${url}/verify`, { key: t.key }),
    /** the records as the answer lists them, added to the zone */
    addRecords: () => {
      for (const r of domain.records)
        zone.set(r.name, r.type === "CNAME" ? { CNAME: r.value } : { TXT: [r.value] });
    },
  };
}

/** A domain whose records are in place and whose first certificate pebble issued. */
async function anIssuedDomain() {
  const d = await aDomain();
  d.addRecords();
  expect((await d.verify()).status).toBe(200);
  await startedJobsSettled();
  const body = await d.get();
  expect(body.certificate.status, JSON.stringify(body.certificate)).toBe("issued");
  return d;
}

describe("registering a hostname", () => {
  it("answers with the CNAME and TXT records to add, not ready, no connection URL", async () => {
    const { domain } = await aDomain();
    expect(domain).toMatchObject({
      status: "awaiting_records",
      ready: false,
      connection_url_template: null,
      dns: { state: "pending", checked_at: null },
      certificate: { status: "none", order: null, not_after: null },
    });
    const [cname, txt] = domain.records;
    expect(cname).toMatchObject({ type: "CNAME", name: domain.hostname, value: TARGET });
    expect(txt).toMatchObject({
      type: "TXT",
      name: `_chargecloud.${domain.hostname}`,
      result: "unchecked",
    });
    expect(txt?.value).toMatch(/^chargecloud-domain-verification=[0-9A-Za-z]{32}$/);
  });

  it("refuses IP addresses, local names, apex names, wildcards and the service's own hostnames", async () => {
    const t = await aTenantWithKey();
    const own = new URL(env().publicBaseUrl).hostname;
    for (const hostname of [
      "10.0.0.1",
      "localhost",
      "ocpp.example.local",
      "example.com",
      "*.brand.com",
      "ocpp_x.brand.com",
      "-ocpp.brand.com",
      `ocpp.${TARGET}`,
      TARGET,
      `a.b.${own}`,
      `${"a".repeat(64)}.brand.com`,
    ]) {
      const res = await call("POST", `/v1/tenants/${t.tenantId}/ocpp-domains`, {
        key: t.key,
        body: { hostname },
        idempotencyKey: idem(),
      });
      expect(res.status, hostname).toBe(422);
      expect(res.body.error.code).toBe("ocpp_domain_invalid");
      expect(res.body.error.details.fields[0].field).toBe("hostname");
    }
  });

  it("one project per hostname: the same project is told its domain, another only that it is taken", async () => {
    const { domain, tenantId, key } = await aDomain();
    const again = await call("POST", `/v1/tenants/${tenantId}/ocpp-domains`, {
      key,
      body: { hostname: `${domain.hostname.toUpperCase()}.` },
      idempotencyKey: idem(),
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: "ocpp_domain_taken",
      details: { domain_id: domain.id },
    });
    const other = await aTenantWithKey();
    const res = await call("POST", `/v1/tenants/${other.tenantId}/ocpp-domains`, {
      key: other.key,
      body: { hostname: domain.hostname },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual({});
    // and it cannot read the first project's domain
    const read = await call("GET", `/v1/tenants/${other.tenantId}/ocpp-domains/${domain.id}`, {
      key: other.key,
    });
    expect(read.status).toBe(404);
  });
});

describe("verification and certificates", () => {
  it("records missing: a clear state and a message per record; no order", async () => {
    const d = await aDomain();
    const res = await d.verify();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "awaiting_records",
      ready: false,
      dns: { state: "pending" },
      certificate: { status: "none", order: null },
    });
    expect(res.body.records.map((r: { result: string }) => r.result)).toEqual([
      "missing",
      "missing",
    ]);
    expect(res.body.dns.message).toContain(`No CNAME record at ${d.domain.hostname}`);
    // a CNAME elsewhere is `wrong`, and says where it must point
    zone.set(d.domain.hostname, { CNAME: "elsewhere.example.net" });
    const wrong = await d.verify();
    expect(wrong.body.records[0]).toMatchObject({
      result: "wrong",
      found: ["elsewhere.example.net"],
    });
    expect(wrong.body.records[0].message).toContain(`must be ${TARGET}`);
    expect(await db().ocppDomainOrder.count({ where: { domainId: d.domain.id } })).toBe(0);
  });

  it("verified → a certificate by ACME (pebble, HTTP-01), its key sealed at rest; ready stays false", async () => {
    const d = await anIssuedDomain();
    const body = await d.get();
    expect(body).toMatchObject({
      status: "certificate_issued",
      ready: false,
      connection_url_template: null,
      dns: { state: "verified" },
      certificate: { status: "issued", order: { status: "succeeded", reason: "issue", tries: 1 } },
    });
    expect(body.records.map((r: { result: string }) => r.result)).toEqual(["found", "found"]);
    const row = await db().ocppDomain.findUniqueOrThrow({ where: { id: d.domain.id } });
    const cert = new crypto.X509Certificate(row.certificatePem!);
    expect(cert.subjectAltName).toBe(`DNS:${d.domain.hostname}`);
    expect(body.certificate.serial).toBe(cert.serialNumber.toLowerCase());
    expect(row.certificateKey).toMatch(/^v1\./);
    expect(row.certificateKey).not.toContain("PRIVATE KEY");
    expect(cert.checkPrivateKey(crypto.createPrivateKey(open(row.certificateKey!)))).toBe(true);
    // the challenge answers are gone once the order settled
    expect(await db().acmeChallenge.count({ where: { domainId: d.domain.id } })).toBe(0);
  });

  it("two verifies at once journal one order; the gateways are told of the certificate and of the delete", async () => {
    const listener = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await listener.connect();
    const told: string[] = [];
    listener.on("notification", (n) => told.push(n.payload ?? ""));
    await listener.query(`LISTEN ${CERTIFICATE_CHANNEL}`);
    try {
      const d = await aDomain();
      d.addRecords();
      const answers = await Promise.all([d.verify(), d.verify(), d.verify()]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      await startedJobsSettled();
      expect(await db().ocppDomainOrder.count({ where: { domainId: d.domain.id } })).toBe(1);
      expect((await d.get()).certificate.status).toBe("issued");
      expect((await call("DELETE", d.url, { key: d.key })).status).toBe(200);
      await expect.poll(() => told.filter((h) => h === d.domain.hostname).length).toBe(2);
    } finally {
      await listener.end();
    }
  });

  it("ACME failure: the error and the next try are visible, the retry (same order row) issues", async () => {
    const d = await aDomain();
    d.addRecords();
    challengesAnswered = false;
    try {
      await d.verify();
      await startedJobsSettled();
    } finally {
      challengesAnswered = true;
    }
    const failed = await d.get();
    expect(failed).toMatchObject({
      status: "issuing_certificate",
      certificate: {
        status: "retrying",
        order: { status: "pending", tries: 1, error: { kind: "order_invalid" } },
      },
    });
    expect(failed.certificate.order.error.message).toMatch(/http-01/);
    const nextTry = new Date(failed.certificate.order.next_try_at);
    expect(nextTry.getTime()).toBeGreaterThan(Date.now() + 30_000);
    // not before its time
    expect(await runOrders(new Date(nextTry.getTime() - 5_000))).toBe(0);
    expect(await runOrders(new Date(nextTry.getTime() + 1_000))).toBe(1);
    const issued = await d.get();
    expect(issued.certificate).toMatchObject({
      status: "issued",
      order: { id: failed.certificate.order.id, status: "succeeded", tries: 2 },
    });
    // the failure stays on the record
    expect(issued.certificate.order.error.kind).toBe("order_invalid");
  });

  it("expiry near → the sweep orders a renewal and a new certificate replaces the old", async () => {
    const d = await anIssuedDomain();
    const first = await d.get();
    const renewAfter = new Date(first.certificate.renew_after);
    expect(renewAfter.getTime()).toBeLessThan(new Date(first.certificate.not_after).getTime());
    // before renew_after nothing is ordered
    await sweepDomains(db(), resolver, new Date(renewAfter.getTime() - 60_000));
    expect(await db().ocppDomainOrder.count({ where: { domainId: d.domain.id } })).toBe(1);
    const at = new Date(renewAfter.getTime() + 60_000);
    await sweepDomains(db(), resolver, at);
    const renewing = await d.get();
    expect(renewing.certificate).toMatchObject({
      status: "renewing",
      serial: first.certificate.serial,
      order: { reason: "renew", status: "pending" },
    });
    await runOrders(at);
    const renewed = await d.get();
    expect(renewed.certificate).toMatchObject({
      status: "issued",
      order: { reason: "renew", status: "succeeded" },
    });
    expect(renewed.certificate.serial).not.toBe(first.certificate.serial);
  });

  it("records removed later: flagged, the certificate kept until it lapses, no renewal meanwhile; back → verified", async () => {
    const d = await anIssuedDomain();
    const txt = d.domain.records[1]!;
    zone.remove(txt.name);
    const later = new Date(Date.now() + 2 * 3_600_000);
    await sweepDomains(db(), resolver, later);
    const flagged = await d.get();
    expect(flagged).toMatchObject({
      status: "records_missing",
      dns: { state: "missing" },
      certificate: { status: "issued" },
    });
    expect(flagged.dns.missing_since).toBe(later.toISOString());
    expect(flagged.records[1].result).toBe("missing");
    expect(flagged.dns.message).toMatch(/keep working until the certificate lapses/);
    // due for renewal, but the records are gone: nothing is ordered
    const renewAt = new Date(new Date(flagged.certificate.renew_after).getTime() + 60_000);
    await sweepDomains(db(), resolver, renewAt);
    expect(await db().ocppDomainOrder.count({ where: { domainId: d.domain.id } })).toBe(1);
    // the certificate lapses (its end moved into the past, as time would)
    await db().ocppDomain.update({
      where: { id: d.domain.id },
      data: { certificateNotAfter: new Date(Date.now() - 1_000) },
    });
    expect(await d.get()).toMatchObject({
      status: "lapsed",
      certificate: { status: "expired" },
    });
    // the records come back: verified again, and a new certificate is ordered
    d.addRecords();
    const back = await d.verify();
    expect(back.body).toMatchObject({ dns: { state: "verified", missing_since: null } });
    await startedJobsSettled();
    expect(await d.get()).toMatchObject({
      status: "certificate_issued",
      certificate: { status: "issued", order: { reason: "issue", status: "succeeded" } },
    });
  });

  it("a failed lookup decides nothing: a verified domain stays verified", async () => {
    const d = await anIssuedDomain();
    const failing = {
      resolveCname: () => Promise.reject(Object.assign(new Error("timeout"), { code: "ETIMEOUT" })),
      resolveTxt: () => Promise.reject(Object.assign(new Error("timeout"), { code: "ETIMEOUT" })),
    };
    await sweepDomains(db(), failing, new Date(Date.now() + 2 * 3_600_000));
    const body = await d.get();
    expect(body.dns.state).toBe("verified");
    expect(body.records.map((r: { result: string }) => r.result)).toEqual(["error", "error"]);
  });

  it("answers an HTTP-01 challenge only for the hostname it was made for", async () => {
    const d = await aDomain();
    await db().acmeChallenge.create({
      data: { token: "tok_abc-123", domainId: d.domain.id, keyAuthorization: "tok_abc-123.thumb" },
    });
    const get = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get(
            {
              host: "127.0.0.1",
              port: httpPort,
              path: "/.well-known/acme-challenge/tok_abc-123",
              headers: { host },
            },
            (res) => {
              let body = "";
              res.on("data", (c: Buffer) => (body += c.toString()));
              res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
            },
          )
          .on("error", reject);
      });
    expect(await get(d.domain.hostname)).toEqual({ status: 200, body: "tok_abc-123.thumb" });
    expect((await get("other.brand.com")).status).toBe(404);
  });
});

describe("ready: the TLS check after issue and renewal", () => {
  it("the certificate pebble issued is served by SNI at once (NOTIFY), and the check job then finds it: ready, with the template; a renewal keeps it ready and is checked again", async () => {
    const { startTestGateway, waitUntil } = await import("../../testing/ocpp");
    const gw = await startTestGateway({ domainTls: {} });
    const target = () => ({ host: "127.0.0.1", port: gw.domainTlsPort! });
    const checks = (now: Date) => runJobsNow({ db: db(), definitions: [tlsCheckJob(target)], now });
    try {
      const d = await anIssuedDomain();
      const issued = await d.get();
      // issued but not ready yet: the check is journaled, a little later
      expect(issued).toMatchObject({ ready: false, connection_url_template: null });
      const orderId = issued.certificate.order.id;
      const job = await db().job.findUniqueOrThrow({
        where: { id: `ocpp-domains.tls-check:${orderId}` },
      });
      expect(job.payload).toEqual({ domain_id: d.domain.id });
      await waitUntil(
        () => gw.certificates?.domain(d.domain.hostname)?.serial === issued.certificate.serial,
      );
      expect(await checks(new Date(job.runAt.getTime() + 1_000))).toBeGreaterThanOrEqual(1);
      expect(await d.get()).toMatchObject({
        ready: true,
        connection_url_template: `wss://${d.domain.hostname}/ocpp/{station_name}`,
        tls_check: { serial: issued.certificate.serial, error: null },
      });
      // a real charger (ocpp-rpc, strict mode) trusting pebble's root dials the name (resolved to
      // the gateway's loopback listener by its own lookup) and gets in with its password
      const password = "pebble-domain-pw-0001";
      const station = await aStationWithPassword(d, password);
      const charger = new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
        endpoint: `wss://${d.domain.hostname}:${gw.domainTlsPort}/ocpp`,
        identity: station.name,
        password,
        protocols: ["ocpp2.0.1"],
        strictMode: true,
        strictModeValidators,
        reconnect: false,
        wsOpts: {
          ca: await pebble.issuingRootPem(),
          lookup: (_h: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) =>
            o.all ? cb(null, [{ address: "127.0.0.1", family: 4 }]) : cb(null, "127.0.0.1", 4),
        },
      });
      await charger.connect();
      await expect(charger.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
      // renewal: stays ready while the new certificate is ordered and stored, then checked again
      const at = new Date(new Date(issued.certificate.renew_after).getTime() + 60_000);
      await sweepDomains(db(), resolver, at);
      await runOrders(at);
      const renewed = await d.get();
      expect(renewed.certificate.serial).not.toBe(issued.certificate.serial);
      expect(renewed.ready).toBe(true);
      await waitUntil(
        () => gw.certificates?.domain(d.domain.hostname)?.serial === renewed.certificate.serial,
      );
      const renewalCheck = await db().job.findUniqueOrThrow({
        where: { id: `ocpp-domains.tls-check:${renewed.certificate.order.id}` },
      });
      await checks(new Date(renewalCheck.runAt.getTime() + 1_000));
      expect((await d.get()).tls_check).toMatchObject({
        serial: renewed.certificate.serial,
        error: null,
      });
      // the charger connected before the renewal still has its socket
      await expect(charger.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
      await charger.close({ force: true });
    } finally {
      await gw.close();
    }
  });
});

describe("deleting a domain", () => {
  it("removes it, its certificate, orders and challenges; the hostname is free again", async () => {
    const d = await anIssuedDomain();
    const res = await call("DELETE", d.url, { key: d.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: d.domain.id, hostname: d.domain.hostname, deleted: true });
    expect((await call("GET", d.url, { key: d.key })).status).toBe(404);
    expect(await db().ocppDomainOrder.count({ where: { domainId: d.domain.id } })).toBe(0);
    const list = await call("GET", `/v1/tenants/${d.tenantId}/ocpp-domains`, { key: d.key });
    expect(list.body.data).toEqual([]);
    const again = await aDomain(d.domain.hostname);
    expect(again.domain.hostname).toBe(d.domain.hostname);
  });

  it("an order in flight when the domain is deleted records nothing", async () => {
    const d = await aDomain();
    d.addRecords();
    challengesAnswered = false;
    try {
      await d.verify();
      await startedJobsSettled();
    } finally {
      challengesAnswered = true;
    }
    const order = await db().ocppDomainOrder.findFirstOrThrow({ where: { domainId: d.domain.id } });
    expect((await call("DELETE", d.url, { key: d.key })).status).toBe(200);
    await runOrders(new Date(order.nextTryAt!.getTime() + 1_000));
    expect(await db().ocppDomain.count({ where: { id: d.domain.id } })).toBe(0);
    const job = await db().job.findUnique({ where: { id: order.jobId } });
    expect(job?.status).toBe("succeeded");
  });
});
