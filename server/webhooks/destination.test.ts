import fs from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { presentEvent } from "../events/present-event";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import { selfSignedCertificate } from "../../testing/certificates";
import { runJobsNow } from "../jobs/run-now";
import { deliveryJob } from "./deliver-webhook";
import { vetDestination } from "./destination";

// Production rules end to end: endpoint URLs must be https://<public hostname> on port 443.
process.env.SERVICE_ENV = "production";

const vet = (...addresses: string[]) =>
  vetDestination("hooks.example.com", {
    allowPrivate: false,
    resolve: () => Promise.resolve(addresses),
  });

describe("which resolved addresses a webhook may reach", () => {
  it("public IPv4 and IPv6 addresses, including IPv4 ones in IPv6 forms that reach them", async () => {
    for (const address of [
      "8.8.8.8",
      "1.1.1.1",
      "93.184.216.34",
      "11.0.0.1", // next to 10/8
      "100.63.255.255", // below 100.64/10
      "100.128.0.0", // above it
      "126.255.255.255", // below 127/8
      "169.253.255.255",
      "172.15.255.255", // below 172.16/12
      "172.32.0.0", // above it
      "192.0.1.1",
      "192.167.255.255",
      "198.17.255.255", // below 198.18/15
      "198.20.0.0", // above it
      "223.255.255.255", // below multicast
      "2606:4700:4700::1111",
      "2001:4860:4860::8888",
      "2a00:1450:4001:82b::200e",
      "::ffff:8.8.8.8", // IPv4-mapped: connects to 8.8.8.8
      "::ffff:808:808", // the same in hex
      "64:ff9b::8.8.8.8", // NAT64: forwarded to 8.8.8.8
      "2002:808:808::1", // 6to4 of 8.8.8.8
    ]) {
      expect(await vet(address), address).toEqual([address]);
    }
    expect(await vet("8.8.8.8", "2606:4700:4700::1111")).toEqual([
      "8.8.8.8",
      "2606:4700:4700::1111",
    ]);
  });

  it("refuses private, loopback, link-local, multicast, reserved and unspecified IPv4", async () => {
    for (const address of [
      "0.0.0.0",
      "0.255.255.255",
      "10.0.0.1",
      "10.255.255.255",
      "100.64.0.1",
      "100.127.255.255",
      "127.0.0.1",
      "127.255.255.254",
      "169.254.169.254", // cloud metadata
      "172.16.0.1",
      "172.31.255.255",
      "192.0.0.8",
      "192.0.2.1",
      "192.88.99.1",
      "192.168.1.1",
      "198.18.0.1",
      "198.19.255.255",
      "198.51.100.7",
      "203.0.113.9",
      "224.0.0.1",
      "239.255.255.250",
      "240.0.0.1",
      "255.255.255.255",
    ]) {
      expect(await vet(address), address).toBeNull();
    }
  });

  it("refuses non-public IPv6, and IPv6 forms that embed a non-public IPv4", async () => {
    for (const address of [
      "::",
      "::1",
      "fc00::1",
      "fd12:3456:789a::1",
      "fe80::1",
      "fe80::1%eth0",
      "fec0::1", // deprecated site-local
      "ff02::1",
      "ff0e::1",
      "100::1", // discard
      "2001:db8::1",
      "3fff::1", // documentation
      "2001:2::1", // benchmarking
      "2001:20::1", // ORCHIDv2
      "4000::1", // outside global unicast
      "::ffff:127.0.0.1", // IPv4-mapped
      "::ffff:7f00:1", // the same in hex
      "::ffff:10.0.0.1",
      "::ffff:169.254.169.254",
      "::127.0.0.1", // IPv4-compatible (deprecated): refused whatever it embeds
      "::7f00:1",
      "::8.8.8.8",
      "2002:7f00:1::1", // 6to4 of 127.0.0.1
      "2002:a00:1::", // 6to4 of 10.0.0.1
      "2002:c0a8:101::1", // 6to4 of 192.168.1.1
      "2001::1", // Teredo: the whole 2001::/32
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "64:ff9b::127.0.0.1", // NAT64 of loopback
      "64:ff9b::a00:1", // NAT64 of 10.0.0.1
      "64:ff9b:1::808:808", // local-use NAT64: refused whatever it embeds
    ]) {
      expect(await vet(address), address).toBeNull();
    }
  });

  it("refuses what is not an address, and a mix with any non-public address", async () => {
    for (const address of ["", "hooks.example.com", "1.2.3", "010.0.0.1", "256.1.1.1", ":::1"])
      expect(await vet(address), address).toBeNull();
    expect(await vet()).toBeNull();
    expect(await vet("8.8.8.8", "10.0.0.1")).toBeNull();
    expect(await vet("2606:4700:4700::1111", "::ffff:127.0.0.1")).toBeNull();
  });

  it("judges IP literals without resolving them", async () => {
    const never = () => Promise.reject(new Error("resolved"));
    const literal = (host: string) => vetDestination(host, { allowPrivate: false, resolve: never });
    expect(await literal("8.8.8.8")).toEqual(["8.8.8.8"]);
    expect(await literal("[2606:4700:4700::1111]")).toEqual(["2606:4700:4700::1111"]);
    expect(await literal("127.0.0.1")).toBeNull();
    expect(await literal("[::ffff:7f00:1]")).toBeNull();
  });
});

describe("a delivery to a hostname that resolves to a public address", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cp-webhook-tls-"));
  const { certPath, keyPath } = selfSignedCertificate(dir, "hooks.example.com");
  const received: {
    host?: string;
    servername: string | false | null;
    signature: string;
    body: string;
  }[] = [];
  let receiver: https.Server;
  let receiverPort = 0;

  beforeAll(async () => {
    receiver = https.createServer(
      { cert: fs.readFileSync(certPath), key: fs.readFileSync(keyPath) },
      (req, res) => {
        let body = "";
        req.on("data", (chunk: Buffer) => (body += chunk.toString()));
        req.on("end", () => {
          received.push({
            host: req.headers.host,
            servername: (req.socket as TLSSocket).servername,
            signature: String(req.headers["service-signature"]),
            body,
          });
          res.writeHead(204).end();
        });
      },
    );
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverPort = (receiver.address() as AddressInfo).port;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is vetted with production rules, sent over TLS to that address for the hostname, and verifies", async () => {
    const t = await aTenantWithKey();
    const offPort = await call("POST", `/v1/tenants/${t.tenantId}/webhooks`, {
      key: t.key,
      body: { url: "https://hooks.example.com:8443/hooks", events: ["webhook.test"] },
    });
    expect(offPort.body.error.details.fields[0].message).toBe("must use port 443 in production");
    const created = await call("POST", `/v1/tenants/${t.tenantId}/webhooks`, {
      key: t.key,
      body: { url: "https://hooks.example.com/hooks", events: ["webhook.test"] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const test = await call("POST", `/v1/tenants/${t.tenantId}/webhooks/${created.body.id}/test`, {
      key: t.key,
    });
    expect(test.status).toBe(202);

    const resolved: string[] = [];
    const connected: string[] = [];
    const delivery = deliveryJob(() => ({
      allowPrivate: false,
      resolve: (hostname) => {
        resolved.push(hostname);
        return Promise.resolve(hostname === "hooks.example.com" ? ["93.184.216.34"] : []);
      },
      // No internet here: the bytes for the vetted public address go to the local receiver.
      testNetwork: {
        connectTo: (address, port) => {
          connected.push(`${address}:${port}`);
          return { host: "127.0.0.1", port: receiverPort };
        },
        ca: fs.readFileSync(certPath, "utf8"),
      },
    }));
    await runJobsNow({ db: db(), definitions: [delivery] });

    expect(resolved).toEqual(["hooks.example.com"]);
    expect(connected).toEqual(["93.184.216.34:443"]);
    expect(received).toHaveLength(1);
    const got = received[0]!;
    expect(got).toMatchObject({ host: "hooks.example.com", servername: "hooks.example.com" });
    const stripe = new Stripe("sk_test_unused", { telemetry: false });
    const verified = stripe.webhooks.constructEvent(got.body, got.signature, created.body.secret);
    const logged = await db().event.findFirstOrThrow({ where: { id: test.body.event_id } });
    expect(verified).toEqual(presentEvent(logged));
    expect(
      await db().webhookDelivery.findFirstOrThrow({ where: { endpointId: created.body.id } }),
    ).toMatchObject({ status: "acknowledged", attempts: 1, lastStatus: 204, lastError: null });
  });
});
