import crypto from "node:crypto";
import { expect } from "vitest";
import { handleLogin } from "../server/http/oidc-interaction";
import { CONSOLE_CLIENT_ID, consoleClientSecret } from "../server/auth/oidc-provider";
import { handleOidc } from "../server/auth/oidc-route";
import { env } from "../server/env";

/**
 * A browser at the built-in provider, in-process: requests shaped as `next start` hands them to a
 * route behind a TLS-terminating proxy (the URL names http://localhost:3000 whatever the client
 * used; the public name is only in the headers), a cookie jar, and redirects checked to stay on
 * PUBLIC_BASE_URL.
 */
export function delivered(
  url: string | URL,
  init: RequestInit = {},
  host = new URL(env().publicBaseUrl).host,
): Request {
  const { pathname, search } = new URL(url, env().publicBaseUrl);
  const headers = new Headers(init.headers);
  headers.set("host", host);
  headers.set("x-forwarded-host", host);
  headers.set("x-forwarded-proto", new URL(env().publicBaseUrl).protocol.replace(":", ""));
  return new Request(`http://localhost:3000${pathname}${search}`, { ...init, headers });
}

/** A browser's cookie jar for one site. */
export class Jar {
  private cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      if (/;\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(line))
        this.cookies.delete(pair!.slice(0, eq));
      else this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  }
  get(name: string) {
    return this.cookies.get(name);
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

export const withCookies = (jar: Jar, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
});

/** The absolute address a redirect sends the browser to; it must be on the public address. */
export function followed(res: Response): URL {
  expect([302, 303]).toContain(res.status);
  const location = new URL(res.headers.get("location")!);
  expect(location.origin).toBe(env().publicBaseUrl);
  return location;
}

export type ConsoleTokens = {
  access_token: string;
  id_token: string;
  expires_in: number;
  refresh_token?: string;
  scope?: string;
};

/**
 * The console's sign-in at the provider, run in-process: the authorization code flow with PKCE
 * as the console's client, signing in with a password. `refused` is where a refused sign-in went.
 */
export async function consoleSignIn(email: string, password: string) {
  const base = env().publicBaseUrl;
  const redirect = `${base}/api/auth/callback/oidc`;
  const jar = new Jar();
  const verifier = crypto.randomBytes(32).toString("base64url");
  const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
  const auth = new URL(`${base}/oidc/auth`);
  for (const [k, v] of Object.entries({
    client_id: CONSOLE_CLIENT_ID,
    response_type: "code",
    redirect_uri: redirect,
    scope: "openid email profile",
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
    nonce: "nn",
  }))
    auth.searchParams.set(k, v);
  const start = jar.take(await handleOidc(delivered(auth)));
  const interaction = followed(start);
  const uid = interaction.pathname.split("/").pop()!;
  expect(interaction.pathname).toBe(`/interaction/${uid}`);

  const login = await handleLogin(
    delivered(`/interaction/${uid}/login`, {
      method: "POST",
      body: new URLSearchParams({ email, password }),
    }),
    uid,
  );
  const resume = followed(login);
  if (!resume.pathname.startsWith("/oidc/")) return { refused: resume };

  const callback = jar.take(await handleOidc(delivered(resume, withCookies(jar))));
  const back = followed(callback);
  expect(`${back.origin}${back.pathname}`).toBe(redirect);
  expect(back.searchParams.get("state")).toBe("st");
  const token = await handleOidc(
    delivered("/oidc/token", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${CONSOLE_CLIENT_ID}:${consoleClientSecret()}`).toString("base64")}`,
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: redirect,
        code_verifier: verifier,
      }),
    }),
  );
  if (token.status !== 200) throw new Error(await token.text());
  return { tokens: (await token.json()) as ConsoleTokens };
}
