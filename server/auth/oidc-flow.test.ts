import { describe, expect, it, vi } from "vitest";
import { POST as startSignInRoute } from "@/app/sign-in/start/route";
import { db } from "../db";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import { signUp } from "./accounts";
import { consoleSignIn, delivered, followed, Jar, withCookies } from "../../testing/oidc-browser";
import { handleLogin, handleSignUp } from "../http/oidc-interaction";
import { handlers } from "./next-auth";
import { handleOidc } from "./oidc-route";

// A real public name, as in production: not localhost, served over TLS by a proxy in front, and
// not resolvable from here (the server must never need to reach itself through it).
const HOST = "console.chargecloud.example";
const BASE = vi.hoisted(
  () => (process.env.PUBLIC_BASE_URL = "https://console.chargecloud.example"),
);
const REDIRECT = `${BASE}/api/auth/callback/oidc`;

describe("the built-in OpenID Connect provider", () => {
  it("issues access tokens that /v1 accepts as the signed-in user", async () => {
    const email = `flow-${Date.now()}@example.com`;
    const created = await signUp(db(), { name: "Flow", email, password: "correct horse battery" });
    if (!created.ok) throw new Error(created.message);
    const project = await aTenantWithKey();
    await db().teamMember.create({
      data: { teamId: project.teamId, userId: created.userId, role: "viewer" },
    });

    const { tokens } = await consoleSignIn(email, "correct horse battery");
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
  });

  it("advertises endpoints at PUBLIC_BASE_URL, whatever name a request arrives under", async () => {
    for (const host of [HOST, "10.0.0.7:3000", "localhost:3000"]) {
      const discovery = await handleOidc(
        delivered("/oidc/.well-known/openid-configuration", {}, host),
      );
      expect(await discovery.json()).toMatchObject({
        issuer: `${BASE}/oidc`,
        authorization_endpoint: `${BASE}/oidc/auth`,
        token_endpoint: `${BASE}/oidc/token`,
        jwks_uri: `${BASE}/oidc/jwks`,
        end_session_endpoint: `${BASE}/oidc/session/end`,
      });
    }
  });

  it("sends a wrong password back to the form and issues nothing", async () => {
    const email = `wrong-${Date.now()}@example.com`;
    await signUp(db(), { name: "W", email, password: "correct horse battery" });
    const { refused } = await consoleSignIn(email, "incorrect horse battery");
    expect(refused?.pathname).toMatch(/^\/interaction\//);
    expect(refused?.searchParams.get("error")).toBe("Wrong email or password.");
  });

  it("sends a refused sign-up back to its form with the name and email typed, never the password", async () => {
    const email = `taken-${Date.now()}@example.com`;
    await signUp(db(), { name: "First", email, password: "correct horse battery" });
    const refuse = async (fields: Record<string, string>) =>
      followed(
        await handleSignUp(
          delivered("/interaction/some-uid/signup", {
            method: "POST",
            body: new URLSearchParams(fields),
          }),
          "some-uid",
        ),
      );
    const taken = await refuse({ name: "Ada Lovelace", email, password: "correct horse battery" });
    expect(taken.pathname).toBe("/interaction/some-uid");
    expect(taken.searchParams.get("mode")).toBe("signup");
    expect(taken.searchParams.get("field")).toBe("email");
    expect(taken.searchParams.get("name")).toBe("Ada Lovelace");
    expect(taken.searchParams.get("email")).toBe(email);
    const short = await refuse({ name: "Ada", email: `new-${email}`, password: "short" });
    expect(short.searchParams.get("field")).toBe("password");
    expect(short.searchParams.get("name")).toBe("Ada");
    expect(short.searchParams.get("email")).toBe(`new-${email}`);
    expect(short.searchParams.has("password")).toBe(false);
    expect([...short.searchParams.values()]).not.toContain("short");
  });

  it("slows password guessing: after 10 attempts a minute for one email, even the right password waits", async () => {
    const email = `guess-${Date.now()}@example.com`;
    await signUp(db(), { name: "G", email, password: "correct horse battery" });
    // The limit counts per fixed clock minute: start early in one, so all 11 attempts share it.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 30_000) await new Promise((r) => setTimeout(r, left + 100));
    const attempt = (password: string) =>
      handleLogin(
        delivered("/interaction/x/login", {
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
  }, 90_000);
});

describe("console sign-in through Auth.js", () => {
  it("uses PUBLIC_BASE_URL's callback address, not the one next start's request URL names", async () => {
    const providers = await handlers.GET(delivered("/api/auth/providers"));
    expect(await providers.json()).toMatchObject({
      oidc: { callbackUrl: REDIRECT, signinUrl: `${BASE}/api/auth/signin/oidc` },
    });
  });

  it("creates an account and signs the browser in at PUBLIC_BASE_URL, not the address next start sees", async () => {
    const jar = new Jar();
    const start = jar.take(
      await startSignInRoute(
        delivered("/sign-in/start", {
          method: "POST",
          headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ screen: "signup" }),
        }),
      ),
    );
    const authorize = followed(start);
    expect(authorize.pathname).toBe("/oidc/auth");
    expect(authorize.searchParams.get("redirect_uri")).toBe(REDIRECT);
    expect(authorize.searchParams.get("screen_hint")).toBe("signup");

    const prompt = followed(jar.take(await handleOidc(delivered(authorize, withCookies(jar)))));
    const uid = prompt.pathname.split("/").pop()!;
    expect(prompt.pathname).toBe(`/interaction/${uid}`);
    const email = `console-${Date.now()}@example.com`;
    const created = await handleSignUp(
      delivered(`/interaction/${uid}/signup`, {
        method: "POST",
        body: new URLSearchParams({ name: "Grace", email, password: "correct horse battery" }),
      }),
      uid,
    );
    const resume = followed(created);
    const back = followed(jar.take(await handleOidc(delivered(resume, withCookies(jar)))));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);

    const signedIn = jar.take(await handlers.GET(delivered(back, withCookies(jar))));
    expect(followed(signedIn).pathname).toBe("/console");
    const session = await handlers.GET(delivered("/api/auth/session", withCookies(jar)));
    const user = await db().user.findUniqueOrThrow({ where: { email } });
    expect(await session.json()).toMatchObject({ userId: user.id });
  });

  it("sends the form opened under another name to the configured sign-in page, and refuses other sites", async () => {
    const post = (host: string, origin: string) =>
      startSignInRoute(
        delivered("/sign-in/start", { method: "POST", headers: { origin }, body: "" }, host),
      );
    const elsewhere = await post("localhost:3000", "http://localhost:3000");
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.headers.get("location")).toBe(`${BASE}/sign-in`);
    expect(elsewhere.headers.getSetCookie()).toEqual([]);
    const forged = await post(HOST, "https://attacker.example");
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie()).toEqual([]);
  });
});
