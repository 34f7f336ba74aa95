import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { consoleSignIn, delivered, followed, Jar, withCookies } from "../../testing/oidc-browser";
import { signUp } from "./accounts";
import {
  CLI_CLIENT_ID,
  codePageView,
  CODE_ENTRIES_PER_MINUTE,
  DEVICE_AUTHORIZATIONS_PER_MINUTE,
  DEVICE_CODE_GRANT,
  POLLS_PER_MINUTE,
} from "./device-flow";
import { handleLogin } from "../http/oidc-interaction";
import { oidcProvider } from "./oidc-provider";
import { handleOidc } from "./oidc-route";

// A public name that is not localhost, as in production (see oidc-flow.test.ts).
const BASE = vi.hoisted(() => (process.env.PUBLIC_BASE_URL = "https://charge.example.org"));
const PASSWORD = "correct horse battery";

let n = 0;
/** Each test its own client address, so the per-address limits of one do not reach another. */
const anAddress = () => `198.51.100.${++n}`;

const form = (fields: Record<string, string>, address: string): RequestInit => ({
  method: "POST",
  headers: {
    "content-type": "application/x-www-form-urlencoded",
    "x-forwarded-for": address,
    "user-agent": "curl/8.5.0",
  },
  body: new URLSearchParams(fields),
});

type DeviceAuthorization = {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
};

/** The script's first step, as README "Tokens for scripts" has it. */
async function deviceAuthorization(address: string, scope = "openid email profile") {
  const res = await handleOidc(
    delivered("/oidc/device/auth", form({ client_id: CLI_CLIENT_ID, scope }, address)),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as DeviceAuthorization;
}

/** One poll of the token endpoint: the token answer or the OAuth error. */
async function poll(deviceCode: string, address: string) {
  const res = await handleOidc(
    delivered(
      "/oidc/token",
      form(
        { client_id: CLI_CLIENT_ID, grant_type: DEVICE_CODE_GRANT, device_code: deviceCode },
        address,
      ),
    ),
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** What the product's code page renders from the browser's provider session (app/device). */
async function codePage(jar: Jar) {
  const provider = await oidcProvider();
  return codePageView(jar.get(provider.cookieName("session")), provider);
}

/** The person's browser opens the verification address: the product's code page, step "code". */
async function openCodePage(jar: Jar, address: string, url = `${BASE}/oidc/device`) {
  const res = jar.take(
    await handleOidc(delivered(url, { headers: { "x-forwarded-for": address } })),
  );
  const page = followed(res);
  expect(`${page.pathname}?${page.searchParams}`).toBe("/device?step=code");
  const view = await codePage(jar);
  expect(view.xsrf).toBeTruthy();
  return view.xsrf!;
}

/** Posts the code page's form to the provider, as the page's buttons do; where it leads. */
async function postCodePage(jar: Jar, address: string, fields: Record<string, string>) {
  return followed(
    jar.take(await handleOidc(delivered("/oidc/device", withCookies(jar, form(fields, address))))),
  );
}

async function aPerson() {
  const email = `device-${Date.now()}-${++n}@example.com`;
  const created = await signUp(db(), { name: "Dev Ice", email, password: PASSWORD });
  if (!created.ok) throw new Error(created.message);
  return { email, userId: created.userId };
}

/**
 * The person's side, in their browser, as README "Tokens for scripts" says: open the address,
 * enter the code, check it and continue, sign in. Ends on the page that says the device is in.
 */
async function approveInBrowser(code: DeviceAuthorization, email: string, address: string) {
  const jar = new Jar();
  const xsrf = await openCodePage(jar, address, code.verification_uri);
  const confirm = await postCodePage(jar, address, { xsrf, user_code: code.user_code });
  expect(`${confirm.pathname}?${confirm.searchParams}`).toBe("/device?step=confirm");
  const view = await codePage(jar);
  // What the person checks before going on: the code their terminal shows, and where it came from.
  expect(view.confirmation).toEqual({
    userCode: code.user_code,
    ip: address,
    userAgent: "curl/8.5.0",
  });
  const login = await postCodePage(jar, address, {
    xsrf: view.xsrf!,
    user_code: code.user_code,
    confirm: "yes",
  });
  const uid = login.pathname.split("/").pop()!;
  expect(login.pathname).toBe(`/interaction/${uid}`);
  const resume = followed(
    await handleLogin(
      delivered(`/interaction/${uid}/login`, form({ email, password: PASSWORD }, address)),
      uid,
    ),
  );
  expect(resume.pathname).toBe(`/oidc/device/${uid}`);
  const done = followed(jar.take(await handleOidc(delivered(resume, withCookies(jar)))));
  expect(`${done.pathname}?${done.searchParams}`).toBe("/device?step=done");
  return jar;
}

/** The `exp − iat`, issuer, audience, scope and header of an access token. */
function shapeOf(token: string) {
  const claims = decodeJwt(token);
  return {
    header: decodeProtectedHeader(token),
    iss: claims.iss,
    aud: claims.aud,
    scope: claims.scope,
    lifetime: claims.exp! - claims.iat!,
  };
}

afterEach(() => vi.useRealTimers());

describe("a person's token for scripts: the device authorization grant (README, Tokens for scripts)", () => {
  it("gives a script the person's token, which /v1/me accepts as that person", async () => {
    const discovery = await handleOidc(delivered("/oidc/.well-known/openid-configuration"));
    expect(await discovery.json()).toMatchObject({
      device_authorization_endpoint: `${BASE}/oidc/device/auth`,
      grant_types_supported: expect.arrayContaining([DEVICE_CODE_GRANT]),
    });
    const person = await aPerson();
    const address = anAddress();
    const code = await deviceAuthorization(address);
    expect(code).toMatchObject({
      verification_uri: `${BASE}/oidc/device`,
      verification_uri_complete: `${BASE}/oidc/device?user_code=${encodeURIComponent(code.user_code)}`,
      expires_in: 600,
      interval: 5,
    });
    expect(code.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    // Before the person has said yes, the script is told to keep waiting.
    expect(await poll(code.device_code, address)).toMatchObject({
      status: 400,
      body: { error: "authorization_pending" },
    });

    await approveInBrowser(code, person.email, address);

    const answer = await poll(code.device_code, address);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    // No refresh token: the console's client gets none either.
    expect(answer.body.refresh_token).toBeUndefined();
    const me = await call("GET", "/v1/me", { key: String(answer.body.access_token) });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: person.userId, email: person.email });
    // The code is spent: polling again gets nothing more.
    expect(await poll(code.device_code, address)).toMatchObject({
      status: 400,
      body: { error: "invalid_grant" },
    });
  });

  it("issues the same kind of token as the console's: issuer, audience, scope, format, one hour, no refresh", async () => {
    const person = await aPerson();
    const address = anAddress();
    // Asking for offline_access changes nothing: this client may not refresh.
    const code = await deviceAuthorization(address, "openid email profile offline_access");
    await approveInBrowser(code, person.email, address);
    const device = (await poll(code.device_code, address)).body;
    const { tokens: viaConsole } = await consoleSignIn(person.email, PASSWORD);

    expect(device.refresh_token).toBeUndefined();
    expect(viaConsole!.refresh_token).toBeUndefined();
    expect(device.expires_in).toBe(viaConsole!.expires_in);
    expect(device.scope).toBe(viaConsole!.scope);
    const deviceShape = shapeOf(String(device.access_token));
    const consoleShape = shapeOf(viaConsole!.access_token);
    expect({ ...deviceShape, header: { ...deviceShape.header, kid: undefined } }).toEqual({
      ...consoleShape,
      header: { ...consoleShape.header, kid: undefined },
    });
    expect(deviceShape).toMatchObject({
      header: { alg: "RS256", typ: "at+jwt" },
      iss: `${BASE}/oidc`,
      aud: `${BASE}/v1`,
      lifetime: 3600,
    });
    expect(decodeJwt(String(device.access_token))).toMatchObject({
      sub: String(person.userId),
      client_id: CLI_CLIENT_ID,
    });
  });

  it("tells the script access_denied when the person cancels, and the page says nothing was granted", async () => {
    const address = anAddress();
    const code = await deviceAuthorization(address);
    const jar = new Jar();
    const xsrf = await openCodePage(jar, address, code.verification_uri);
    await postCodePage(jar, address, { xsrf, user_code: code.user_code });
    const { xsrf: again } = await codePage(jar);
    const canceled = await postCodePage(jar, address, {
      xsrf: again!,
      user_code: code.user_code,
      abort: "yes",
    });
    expect(canceled.searchParams.get("error")).toBe("canceled");
    expect(await poll(code.device_code, address)).toMatchObject({
      status: 400,
      body: { error: "access_denied" },
    });
  });

  it("tells the script expired_token once the code has expired, and the page says so", async () => {
    const address = anAddress();
    const code = await deviceAuthorization(address);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 601_000 });
    expect(await poll(code.device_code, address)).toMatchObject({
      status: 400,
      body: { error: "expired_token" },
    });
    const jar = new Jar();
    const xsrf = await openCodePage(jar, address);
    const refused = await postCodePage(jar, address, { xsrf, user_code: code.user_code });
    expect(refused.searchParams.get("error")).toBe("expired");
    vi.useRealTimers();
  });

  it("refuses a wrong code on the page and keeps what was typed", async () => {
    const address = anAddress();
    const jar = new Jar();
    const xsrf = await openCodePage(jar, address);
    const refused = await postCodePage(jar, address, { xsrf, user_code: "BCDF-GHJK" });
    expect(refused.pathname).toBe("/device");
    expect(refused.searchParams.get("error")).toBe("not_found");
    expect(refused.searchParams.get("user_code")).toBe("BCDF-GHJK");
    // A form whose xsrf token is not the session's is refused before any code is looked up.
    const forged = await postCodePage(jar, address, { xsrf: "forged", user_code: "BCDF-GHJK" });
    expect(forged.searchParams.get("error")).toBe("page_expired");
  });
});

describe("the device flow's limits", () => {
  /** The limits count per fixed clock minute: start early in one, so the attempts share it. */
  async function earlyInAMinute() {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 20_000) await new Promise((r) => setTimeout(r, left + 100));
  }

  it(`limits code entries to ${CODE_ENTRIES_PER_MINUTE} a minute per address (user-code guessing)`, async () => {
    await earlyInAMinute();
    const address = anAddress();
    const jar = new Jar();
    await openCodePage(jar, address);
    for (let i = 0; i < CODE_ENTRIES_PER_MINUTE; i++) {
      // Each answer is a new page with a new xsrf token.
      const { xsrf } = await codePage(jar);
      const guess = await postCodePage(jar, address, { xsrf: xsrf!, user_code: `BCDF-GH${i}` });
      expect(guess.searchParams.get("error")).toBe("not_found");
    }
    // Past the limit even a real code is not looked up.
    const code = await deviceAuthorization(address);
    const { xsrf: current } = await codePage(jar);
    const limited = await postCodePage(jar, address, { xsrf: current!, user_code: code.user_code });
    expect(limited.searchParams.get("error")).toBe("rate_limited");
    expect(await codePage(jar)).toMatchObject({ confirmation: null });
    // Another address is not held up.
    const other = anAddress();
    const elsewhere = new Jar();
    const fresh = await openCodePage(elsewhere, other);
    const confirm = await postCodePage(elsewhere, other, {
      xsrf: fresh,
      user_code: code.user_code,
    });
    expect(confirm.searchParams.get("step")).toBe("confirm");
  }, 60_000);

  it(`limits device authorizations to ${DEVICE_AUTHORIZATIONS_PER_MINUTE} a minute per address`, async () => {
    await earlyInAMinute();
    const address = anAddress();
    for (let i = 0; i < DEVICE_AUTHORIZATIONS_PER_MINUTE; i++) await deviceAuthorization(address);
    const refused = await handleOidc(
      delivered("/oidc/device/auth", form({ client_id: CLI_CLIENT_ID, scope: "openid" }, address)),
    );
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: "rate_limited" });
  }, 60_000);

  it(`answers slow_down to a script polling more than ${POLLS_PER_MINUTE} times a minute`, async () => {
    await earlyInAMinute();
    const address = anAddress();
    const code = await deviceAuthorization(address);
    for (let i = 0; i < POLLS_PER_MINUTE; i++)
      expect((await poll(code.device_code, address)).body.error).toBe("authorization_pending");
    expect(await poll(code.device_code, address)).toMatchObject({
      status: 400,
      body: { error: "slow_down" },
    });
  }, 60_000);
});
