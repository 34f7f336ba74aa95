import crypto from "node:crypto";
import { env } from "../env";

/**
 * Secrets at rest (webhook signing secrets): AES-256-GCM under a key derived from SECRET_KEY.
 * Stored as `v1.<iv>.<tag>.<ciphertext>` in base64url.
 */
function key(): Buffer {
  const secret = env().secretKey;
  if (!secret)
    throw new Error("SECRET_KEY is not configured (npm start creates one under DATA_DIR)");
  return crypto.createHash("sha256").update(`secret-box:${secret}`).digest();
}

export function seal(plaintext: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key(), iv);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

export function open(sealed: string): string {
  const [version, iv, tag, data] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || data === undefined) throw new Error("not a sealed secret");
  const decipher = crypto.createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([
    decipher.update(Buffer.from(data, "base64url")),
    decipher.final(),
  ]).toString("utf8");
}
