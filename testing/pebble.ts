import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { selfSignedCertificate } from "./certificates";

/** A free TCP port on loopback (asked of the kernel, then released for the caller to take). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A GET to pebble's management interface (HTTPS under its listener certificate). */
function managementGet(port: number, path: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: "127.0.0.1", port, path, ca }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(body)
            : reject(new Error(`pebble ${path}: ${res.statusCode} ${body}`)),
        );
      })
      .on("error", reject);
  });
}

/**
 * Let's Encrypt's ACME test server, `pebble` (the Debian package; `.ci/run` installs it), started
 * once per test file: its directory on a loopback HTTPS port under a throwaway certificate (the
 * package ships none), its DNS questions sent to the test's DNS server (`-dnsserver`), and its
 * HTTP-01 requests sent to `httpPort` of whatever address the name resolves to. Challenges are
 * checked at once (PEBBLE_VA_NOSLEEP) and no valid nonce is refused on purpose
 * (PEBBLE_WFE_NONCEREJECT=0): acme-client copes with refused nonces, but the tests count tries.
 */
export async function startPebble(options: { dnsServer: string; httpPort: number }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pebble-"));
  const { certPath, keyPath } = selfSignedCertificate(dir, "127.0.0.1");
  const port = await freePort();
  const managementPort = await freePort();
  const configPath = path.join(dir, "pebble-config.json");
  fs.writeFileSync(
    configPath,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: certPath,
        privateKey: keyPath,
        httpPort: options.httpPort,
        tlsPort: await freePort(),
        ocspResponderURL: "",
        externalAccountBindingRequired: false,
      },
    }),
  );
  const child: ChildProcess = spawn(
    "pebble",
    ["-config", configPath, "-dnsserver", options.dnsServer, "-strict=false"],
    {
      env: {
        ...process.env,
        PEBBLE_VA_NOSLEEP: "1",
        PEBBLE_WFE_NONCEREJECT: "0",
        PEBBLE_AUTHZREUSE: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  // never outlives the test process, however that ends
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const directoryUrl = `https://127.0.0.1:${port}/dir`;
  const caPem = fs.readFileSync(certPath, "utf8");
  // ready once its listener takes connections
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`pebble exited: ${output}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (up) break;
    if (i > 100) throw new Error(`pebble did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    directoryUrl,
    /** pebble's listener certificate: trusted for the directory's HTTPS (ACME_CA_CERT) */
    caPem,
    caPath: certPath,
    /**
     * the root CA pebble issues under (made afresh at each start, read from its management
     * interface): what a charger trusts to accept a certificate pebble issued
     */
    issuingRootPem: () => managementGet(managementPort, "/roots/0", caPem),
    output: () => output,
    close: async () => {
      process.off("exit", killOnExit);
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
