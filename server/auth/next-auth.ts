import NextAuth, { customFetch } from "next-auth";
import type { NextRequest } from "next/server";
import { db } from "../db";
import { env } from "../env";
import { log } from "../log";
import { provisionExternalUser } from "./accounts";
import { CONSOLE_CLIENT_ID, consoleClientSecret, derivedSecret } from "./oidc-provider";
import { fetchOidc } from "./oidc-route";

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
const nextAuth = NextAuth(() => {
  const { publicBaseUrl, oidc } = env();
  const external = oidc.kind === "external";
  return {
    // Auth.js derives its own address (callback URL, redirects) from the request's URL, which
    // `handlers` and `startSignIn` set to PUBLIC_BASE_URL; no Host header is relied on.
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
        [customFetch]: fetchOidc,
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
      // Auth.js's messages only point at its docs; the reason is in the cause.
      error: (error) => {
        const cause = (error.cause as { err?: unknown } | undefined)?.err ?? error.cause;
        log.warn("sign-in error", {
          error: error.name,
          cause: cause instanceof Error ? cause.message : error.message,
        });
      },
      warn: () => undefined,
      debug: () => undefined,
    },
  };
});

export const { auth } = nextAuth;

/**
 * The same request at PUBLIC_BASE_URL. Behind `next start` a route handler's request URL is
 * http://localhost:PORT whatever address the browser used, and Auth.js builds its callback URL
 * (the OAuth redirect URI) and its redirects from that URL. A plain Request, since a NextRequest
 * rewrites a 127.x.x.x or [::1] host to "localhost" in its URL. Auth.js reads only the standard
 * Request, whatever next-auth's handler type says.
 */
function atPublicAddress(request: Request): NextRequest {
  const { pathname, search } = new URL(request.url);
  return new Request(new URL(pathname + search, env().publicBaseUrl), request) as NextRequest;
}

/** Auth.js's routes under /api/auth, answering as PUBLIC_BASE_URL. */
export const handlers = {
  GET: (request: Request) => nextAuth.handlers.GET(atPublicAddress(request)),
  POST: (request: Request) => nextAuth.handlers.POST(atPublicAddress(request)),
};

const cookiePairs = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0]);

/**
 * Starts the authorization code flow at the provider: Auth.js's own sign-in request (CSRF token
 * first, as a browser's form would), made in-process at PUBLIC_BASE_URL. Returns the redirect
 * to the provider carrying the state, PKCE and nonce cookies, or to /sign-in with an error.
 * Callers check the form's Origin first.
 */
export async function startSignIn(params: Record<string, string>): Promise<Response> {
  const base = `${env().publicBaseUrl}/api/auth`;
  const csrf = await handlers.GET(new Request(`${base}/csrf`));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signIn = await handlers.POST(
    new Request(`${base}/signin/oidc?${new URLSearchParams(params)}`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: cookiePairs(csrf).join("; "),
      },
      body: new URLSearchParams({ csrfToken, callbackUrl: "/console" }),
    }),
  );
  const headers = new Headers({
    Location: signIn.headers.get("location") ?? `${env().publicBaseUrl}/sign-in?error=OAuthSignin`,
    "Cache-Control": "no-store",
  });
  for (const cookie of signIn.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/** The provider's end-session URL that also ends the identity provider's own session. */
export async function providerSignOutUrl(): Promise<string | null> {
  const { publicBaseUrl, oidc } = env();
  try {
    const res = await fetchOidc(`${oidc.issuer}/.well-known/openid-configuration`);
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
