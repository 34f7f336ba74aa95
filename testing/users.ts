import { importJWK, SignJWT } from "jose";
import { db } from "../server/db";
import { env } from "../server/env";
import { signingKeys } from "../server/auth/signing-keys";
import type { PlatformRole, TeamRole } from "../server/access/roles";

let n = 0;

/**
 * An access token exactly as the built-in provider issues it (RS256 under the provider's own
 * signing key, `typ: at+jwt`, issuer `/oidc`, audience `/v1`). The browser tests get theirs
 * through the real sign-in flow; API tests use this to skip the browser.
 */
export async function accessTokenFor(userId: number, expiresInSeconds = 600): Promise<string> {
  const jwks = await signingKeys(db());
  const jwk = jwks.keys[0];
  if (!jwk) throw new Error("no signing key");
  const key = await importJWK(jwk, "RS256");
  const { issuer, audience } = env().oidc;
  return new SignJWT({ scope: "openid email profile", client_id: "console" })
    .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: jwk.kid })
    .setIssuer(issuer)
    .setAudience(audience ?? "")
    .setSubject(String(userId))
    .setIssuedAt()
    .setJti(`test-${userId}-${++n}`)
    .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds)
    .sign(key);
}

export type TestUser = { userId: number; email: string; token: string };

/** A person with an account (and optionally a platform role) and a fresh access token. */
export async function aUser(
  options: { email?: string; name?: string; platformRole?: PlatformRole } = {},
): Promise<TestUser> {
  n += 1;
  const email = options.email ?? `person-${process.pid}-${n}-${Date.now()}@example.test`;
  const user = await db().user.create({
    data: {
      email: email.toLowerCase(),
      name: options.name ?? `Person ${n}`,
      platformRole: options.platformRole ?? null,
    },
  });
  return { userId: user.id, email: user.email, token: await accessTokenFor(user.id) };
}

/** A user who belongs to the team with this role. */
export async function aMember(teamId: number, role: TeamRole): Promise<TestUser> {
  const user = await aUser();
  await db().teamMember.create({ data: { teamId, userId: user.userId, role } });
  return user;
}
