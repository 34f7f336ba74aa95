import crypto from "node:crypto";
import type { JWK } from "jose";
import type { Db } from "../db";
import { open, seal } from "../lib/secret-box";

const NAME = "oidc_signing_jwks";

export type PrivateJwks = { keys: (JWK & { kid: string; alg: "RS256"; use: "sig" })[] };

function generate(): PrivateJwks {
  const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = privateKey.export({ format: "jwk" }) as JWK;
  const kid = crypto
    .createHash("sha256")
    .update(`${jwk.n}.${jwk.e}`)
    .digest("base64url")
    .slice(0, 16);
  return { keys: [{ ...jwk, kid, alg: "RS256", use: "sig" }] };
}

let cached: Promise<PrivateJwks> | undefined;

/**
 * The built-in identity provider's signing keys (RS256, which OpenID clients expect by default):
 * made at first use, stored sealed under SECRET_KEY, shared by every process.
 */
export function signingKeys(db: Db): Promise<PrivateJwks> {
  cached ??= load(db).catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function load(db: Db): Promise<PrivateJwks> {
  const existing = await db.serviceSecret.findUnique({ where: { name: NAME } });
  if (existing) return JSON.parse(open(existing.sealed)) as PrivateJwks;
  const fresh = generate();
  // Two processes starting together: the first insert wins and both read it back.
  await db.serviceSecret.createMany({
    data: [{ name: NAME, sealed: seal(JSON.stringify(fresh)) }],
    skipDuplicates: true,
  });
  const stored = await db.serviceSecret.findUniqueOrThrow({ where: { name: NAME } });
  return JSON.parse(open(stored.sealed)) as PrivateJwks;
}

/** The public halves, for verifying tokens. */
export function publicJwks(keys: PrivateJwks): { keys: JWK[] } {
  return {
    keys: keys.keys.map(({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use })),
  };
}
