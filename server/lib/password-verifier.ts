import crypto from "node:crypto";
import { env } from "../env";

/**
 * A fast, keyed verifier of a station's connection password, kept beside its scrypt hash so a
 * reconnecting charger needs no scrypt (ocpp/README.md, "Reconnects skip scrypt"): HMAC-SHA256,
 * under a key derived from SECRET_KEY (which is never in the database), of the station's id, its
 * current password hash and the password. It matches only while that hash is the station's, so
 * writing a new hash invalidates it on every gateway at once. Without SECRET_KEY there is no key
 * and every check is a scrypt.
 */
export function verifierKey(secret: string): Buffer {
  return Buffer.from(
    crypto.hkdfSync("sha256", secret, "", "charge-cloud station password verifier v1", 32),
  );
}

let configured: { secret: string; key: Buffer } | undefined;

/** The key from this process's SECRET_KEY, or null when none is configured. */
export function configuredVerifierKey(): Buffer | null {
  const secret = env().secretKey;
  if (!secret) return null;
  if (configured?.secret !== secret) configured = { secret, key: verifierKey(secret) };
  return configured.key;
}

/** `v1.<base64url HMAC>`; the hash contains no NUL, so the fields cannot run into each other. */
export function stationVerifier(
  key: Buffer,
  stationId: number,
  passwordHash: string,
  password: Buffer,
): string {
  const mac = crypto
    .createHmac("sha256", key)
    .update(`${stationId}\0${passwordHash}\0`)
    .update(password)
    .digest("base64url");
  return `v1.${mac}`;
}

export function verifierMatches(
  key: Buffer,
  stored: string,
  stationId: number,
  passwordHash: string,
  password: Buffer,
): boolean {
  const expected = Buffer.from(stationVerifier(key, stationId, passwordHash, password));
  const actual = Buffer.from(stored);
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}
