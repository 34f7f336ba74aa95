import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RPCClient } from "ocpp-rpc";
import { afterAll, describe, expect, it } from "vitest";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { selfSignedCertificate } from "../testing/certificates";
import { strictModeValidators } from "./protocol/validators";
import { aLiveGateway } from "../testing/live-gateway";

/** Security profile 2: TLS with the configured certificate, plus HTTP Basic. */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cp-tls-"));
const { certPath, keyPath } = selfSignedCertificate(dir, "127.0.0.1");
// after hooks run last-registered first: the gateway closes, then its certificate goes
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});
const gw = aLiveGateway({ tls: { certPath, keyPath } });

describe("OCPP over TLS", () => {
  it("accepts a charger over wss:// that trusts the certificate, with its password", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, "tls-password-000001");
    const options = (password: string, ca?: Buffer) =>
      <ConstructorParameters<typeof RPCClient>[0]>{
        endpoint: gw.url,
        identity: station.name,
        password,
        protocols: ["ocpp2.0.1"],
        strictMode: true,
        strictModeValidators,
        reconnect: false,
        wsOpts: ca ? { ca } : {},
      };
    expect(gw.url.startsWith("wss://")).toBe(true);
    await expect(new RPCClient(options("tls-password-000001")).connect()).rejects.toThrow(); // untrusted certificate
    await expect(
      new RPCClient(options("wrong-password-0001", fs.readFileSync(certPath))).connect(),
    ).rejects.toThrow();
    const charger = new RPCClient(options("tls-password-000001", fs.readFileSync(certPath)));
    await charger.connect();
    await expect(charger.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
    await charger.close({ force: true });
  });
});
