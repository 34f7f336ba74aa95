import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
} from "jose";
import crypto from "node:crypto";
import type { Db } from "../db";
import { env, type Env } from "../env";
import { publicJwks, signingKeys } from "./signing-keys";

export type VerifiedToken = { issuer: string; subject: string; payload: JWTPayload };

export class TokenError extends Error {}

type RemoteKeys = ReturnType<typeof createRemoteJWKSet>;
type Discovery = { jwks_uri?: string; userinfo_endpoint?: string };
let remote: { issuer: string; doc: Promise<Discovery>; keys?: RemoteKeys } | undefined;

/** The external provider's discovery document, fetched once per process. */
function discovery(issuer: string): Promise<Discovery> {
  if (remote?.issuer !== issuer) {
    const doc = fetch(`${issuer}/.well-known/openid-configuration`).then((res) => {
      if (!res.ok) throw new TokenError(`discovery answered ${res.status}`);
      return res.json() as Promise<Discovery>;
    });
    doc.catch(() => (remote = undefined));
    remote = { issuer, doc };
  }
  return remote.doc;
}

/** The external provider's key set (jose caches and refreshes it). */
async function remoteKeys(issuer: string): Promise<RemoteKeys> {
  const doc = await discovery(issuer);
  if (!doc.jwks_uri) throw new TokenError("discovery document has no jwks_uri");
  if (remote && !remote.keys) remote.keys = createRemoteJWKSet(new URL(doc.jwks_uri));
  return remote?.keys ?? createRemoteJWKSet(new URL(doc.jwks_uri));
}

/** Opaque tokens (not JWTs), checked at the provider's userinfo endpoint; answers kept 60 s. */
const USERINFO_TTL_MS = 60_000;
const userinfoCache = new Map<string, { subject: string; payload: JWTPayload; until: number }>();

async function viaUserinfo(issuer: string, token: string): Promise<VerifiedToken> {
  const key = crypto.createHash("sha256").update(token).digest("hex");
  const hit = userinfoCache.get(key);
  if (hit && hit.until > Date.now()) return { issuer, subject: hit.subject, payload: hit.payload };
  const doc = await discovery(issuer);
  if (!doc.userinfo_endpoint) throw new TokenError("not a JWT and no userinfo endpoint");
  const res = await fetch(doc.userinfo_endpoint, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new TokenError(`userinfo answered ${res.status}`);
  const payload = (await res.json()) as JWTPayload;
  if (typeof payload.sub !== "string" || !payload.sub) throw new TokenError("userinfo has no sub");
  if (userinfoCache.size > 10_000) userinfoCache.clear();
  userinfoCache.set(key, { subject: payload.sub, payload, until: Date.now() + USERINFO_TTL_MS });
  return { issuer, subject: payload.sub, payload };
}

/**
 * Verifies a signed-in user's access token (a JWT) against the configured issuer's keys: the
 * built-in provider's own keys, or the external provider's published key set. Checks signature,
 * issuer, audience, expiry and `typ: at+jwt` (RFC 9068) for the built-in provider. An external
 * provider's opaque (non-JWT) token is accepted when its userinfo endpoint accepts it.
 */
export async function verifyAccessToken(
  db: Db,
  token: string,
  oidc: Env["oidc"] = env().oidc,
): Promise<VerifiedToken> {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(token);
  } catch {
    if (oidc.kind === "external") return viaUserinfo(oidc.issuer, token);
    throw new TokenError("not a JWT");
  }
  if (claims.iss !== oidc.issuer) throw new TokenError("token from another issuer");
  try {
    const { payload } =
      oidc.kind === "builtin"
        ? await jwtVerify(token, createLocalJWKSet(publicJwks(await signingKeys(db))), {
            issuer: oidc.issuer,
            audience: oidc.audience,
            typ: "at+jwt",
            algorithms: ["RS256"],
          })
        : await jwtVerify(token, await remoteKeys(oidc.issuer), {
            issuer: oidc.issuer,
            ...(oidc.audience ? { audience: oidc.audience } : {}),
          });
    if (!payload.sub) throw new TokenError("token has no subject");
    return { issuer: oidc.issuer, subject: payload.sub, payload };
  } catch (error) {
    if (error instanceof TokenError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new TokenError("token expired");
    if (error instanceof joseErrors.JOSEError) throw new TokenError(error.code);
    throw error;
  }
}
