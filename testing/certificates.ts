import { execFileSync } from "node:child_process";
import net from "node:net";
import path from "node:path";

/**
 * Writes a throwaway self-signed certificate for `name` (an IP address or a DNS name), valid for a
 * day, and its key into `dir` (openssl, as a real server's certificate would be made).
 */
export function selfSignedCertificate(dir: string, name: string) {
  const certPath = path.join(dir, "cert.pem");
  const keyPath = path.join(dir, "key.pem");
  const altName = net.isIP(name) ? `IP:${name}` : `DNS:${name}`;
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      keyPath,
      "-out",
      certPath,
      "-days",
      "1",
      "-subj",
      `/CN=${name}`,
      "-addext",
      `subjectAltName=${altName}`,
    ],
    { stdio: "ignore" },
  );
  return { certPath, keyPath };
}
