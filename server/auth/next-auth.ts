import NextAuth from "next-auth";
import { db } from "../db";
import { env } from "../env";
import { log } from "../log";
import { provisionExternalUser } from "./accounts";
import { CONSOLE_CLIENT_ID, consoleClientSecret, derivedSecret } from "./oidc-provider";

declare module "next-auth" {
  interface Session {
    userId: number;
  }
}

/** Seconds a console sign-in lasts (the provider's session lasts as long). */
export const CONSOLE_SESSION_SECONDS = 14 * 24 * 3600;

/**
 * Console sign-in: Auth.js with one OpenID Connect provider, the configured external one or the
 * built-in one at /oidc: the same code path either way. Lazy, so `next build` needs no secrets.
 */
export const { handlers, auth, signIn, signOut } = NextAuth(() => {
  const { publicBaseUrl, oidc } = env();
  const external = oidc.kind === "external";
  return {
    trustHost: true,
    basePath: "/api/auth",
    secret: derivedSecret("auth.js"),
    session: { strategy: "jwt", maxAge: CONSOLE_SESSION_SECONDS },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    useSecureCookies: publicBaseUrl.startsWith("https:"),
    providers: [
      {
        id: "oidc",
        name: external ? "your identity provider" : "Charge Cloud",
        type: "oidc",
        issuer: oidc.issuer,
        clientId: external ? oidc.clientId : CONSOLE_CLIENT_ID,
        clientSecret: external ? oidc.clientSecret : consoleClientSecret(),
        authorization: { params: { scope: "openid email profile" } },
        checks: ["pkce", "state", "nonce"],
      },
    ],
    callbacks: {
      async jwt({ token, account, profile }) {
        if (account && profile) {
          const subject = String(profile.sub ?? account.providerAccountId);
          token.userId = external
            ? await provisionExternalUser(db(), {
                issuer: oidc.issuer,
                subject,
                email: String(profile.email ?? ""),
                emailVerified: profile.email_verified !== false,
                name: typeof profile.name === "string" ? profile.name : undefined,
              })
            : Number(subject);
        }
        return token;
      },
      session({ session, token }) {
        return { ...session, userId: Number(token.userId) };
      },
    },
    logger: {
      error: (error) => log.warn("sign-in error", { error: error.message }),
      warn: () => undefined,
      debug: () => undefined,
    },
  };
});

/** The provider's end-session URL that also ends the identity provider's own session. */
export async function providerSignOutUrl(): Promise<string | null> {
  const { publicBaseUrl, oidc } = env();
  try {
    const res = await fetch(`${oidc.issuer}/.well-known/openid-configuration`);
    const doc = (await res.json()) as { end_session_endpoint?: string };
    if (!doc.end_session_endpoint) return null;
    const url = new URL(doc.end_session_endpoint);
    url.searchParams.set("post_logout_redirect_uri", `${publicBaseUrl}/sign-in`);
    url.searchParams.set("client_id", oidc.kind === "external" ? oidc.clientId : CONSOLE_CLIENT_ID);
    return url.toString();
  } catch {
    return null;
  }
}
