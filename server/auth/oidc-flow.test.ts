import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../testing/api";
import { aTenantWithKey } from "../testing/builders";
import { signUp } from "./accounts";
import { handleLogin } from "./interaction";
import { CONSOLE_CLIENT_ID, consoleClientSecret } from "./oidc-provider";
import { handleOidc } from "./oidc-route";

const BASE = "http://localhost:3000";
const REDIRECT = `${BASE}/api/auth/callback/oidc`;

/** A browser's cookie jar, enough for the provider's cookies. */
class Jar {
  private cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** The authorization code flow with PKCE, run against the real provider in-process. */
async function signInThroughProvider(email: string, password: string) {
  const jar = new Jar();
  const verifier = crypto.randomBytes(32).toString("base64url");
  const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
  const auth = new URL(`${BASE}/oidc/auth`);
  for (const [k, v] of Object.entries({
    client_id: CONSOLE_CLIENT_ID,
    response_type: "code",
    redirect_uri: REDIRECT,
    scope: "openid email profile",
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
    nonce: "nn",
  }))
    auth.searchParams.set(k, v);
  const start = jar.take(await handleOidc(new Request(auth)));
  expect(start.status).toBe(303);
  const interaction = new URL(start.headers.get("location")!, BASE);
  const uid = interaction.pathname.split("/").pop()!;
  expect(interaction.pathname).toBe(`/interaction/${uid}`);

  const login = await handleLogin(
    new Request(`${BASE}/interaction/${uid}/login`, {
      method: "POST",
      body: new URLSearchParams({ email, password }),
    }),
    uid,
  );
  expect(login.status).toBe(303);
  const resume = new URL(login.headers.get("location")!, BASE);
  if (!resume.pathname.startsWith("/oidc/")) return { refused: resume };

  const callback = jar.take(
    await handleOidc(new Request(resume, { headers: { cookie: jar.header() } })),
  );
  expect(callback.status).toBe(303);
  const back = new URL(callback.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get("state")).toBe("st");
  const token = await handleOidc(
    new Request(`${BASE}/oidc/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${CONSOLE_CLIENT_ID}:${consoleClientSecret()}`).toString("base64")}`,
      },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }),
    }),
  );
  if (token.status !== 200) throw new Error(await token.text());
  return { tokens: (await token.json()) as { access_token: string; id_token: string } };
}

describe("the built-in OpenID Connect provider", () => {
  it("issues access tokens that /v1 accepts as the signed-in user", async () => {
    const email = `flow-${Date.now()}@example.com`;
    const created = await signUp(db(), { name: "Flow", email, password: "correct horse battery" });
    if (!created.ok) throw new Error(created.message);
    const project = await aTenantWithKey();
    await db().teamMember.create({
      data: { teamId: project.teamId, userId: created.userId, role: "viewer" },
    });

    const { tokens } = await signInThroughProvider(email, "correct horse battery");
    const [header] = tokens!.access_token.split(".");
    expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toMatchObject({
      alg: "RS256",
      typ: "at+jwt",
    });
    const access = await call("GET", "/v1/access", { key: tokens!.access_token });
    expect(access.status).toBe(200);
    expect(access.body.principal).toMatchObject({ type: "user", user_id: created.userId });
    expect(access.body.tenants).toEqual([
      expect.objectContaining({ id: project.tenantId, roles: ["viewer"] }),
    ]);
    // The ID token is not an access token for /v1 (another audience and type).
    expect((await call("GET", "/v1/access", { key: tokens!.id_token })).status).toBe(401);

    const discovery = await handleOidc(
      new Request(`${BASE}/oidc/.well-known/openid-configuration`),
    );
    expect((await discovery.json()).issuer).toBe(`${BASE}/oidc`);
  });

  it("sends a wrong password back to the form and issues nothing", async () => {
    const email = `wrong-${Date.now()}@example.com`;
    await signUp(db(), { name: "W", email, password: "correct horse battery" });
    const { refused } = await signInThroughProvider(email, "incorrect horse battery");
    expect(refused?.pathname).toMatch(/^\/interaction\//);
    expect(refused?.searchParams.get("error")).toBe("Wrong email or password.");
  });

  it("slows password guessing: after 10 attempts a minute for one email, even the right password waits", async () => {
    const email = `guess-${Date.now()}@example.com`;
    await signUp(db(), { name: "G", email, password: "correct horse battery" });
    const attempt = (password: string) =>
      handleLogin(
        new Request(`${BASE}/interaction/x/login`, {
          method: "POST",
          body: new URLSearchParams({ email, password }),
        }),
        "x",
      );
    for (let i = 0; i < 10; i++) {
      const wrong = new URL((await attempt(`guess-${i}-password`)).headers.get("location")!);
      expect(wrong.searchParams.get("error")).toBe("Wrong email or password.");
    }
    const limited = new URL((await attempt("correct horse battery")).headers.get("location")!);
    expect(limited.searchParams.get("error")).toMatch(/Too many attempts/);
  });
});
