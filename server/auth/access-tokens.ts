import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
} from "jose";
import type { Db } from "../db";
import { env, type Env } from "../env";
import { publicJwks, signingKeys } from "./signing-keys";

export type VerifiedToken = { issuer: string; subject: string; payload: JWTPayload };

export class TokenError extends Error {}

type RemoteKeys = ReturnType<typeof createRemoteJWKSet>;
let remote: { issuer: string; keys: Promise<RemoteKeys> } | undefined;

/** The external provider's key set, found through its discovery document and cached by jose. */
function remoteKeys(issuer: string): Promise<RemoteKeys> {
  if (remote?.issuer !== issuer) {
    const keys = fetch(`${issuer}/.well-known/openid-configuration`)
      .then((res) => {
        if (!res.ok) throw new TokenError(`discovery answered ${res.status}`);
        return res.json() as Promise<{ jwks_uri?: string }>;
      })
      .then((doc) => {
        if (!doc.jwks_uri) throw new TokenError("discovery document has no jwks_uri");
        return createRemoteJWKSet(new URL(doc.jwks_uri));
      });
    keys.catch(() => (remote = undefined));
    remote = { issuer, keys };
  }
  return remote.keys;
}

/**
 * Verifies a signed-in user's access token (a JWT) against the configured issuer's keys: the
 * built-in provider's own keys, or the external provider's published key set. Checks signature,
 * issuer, audience, expiry and `typ: at+jwt` (RFC 9068) for the built-in provider.
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
