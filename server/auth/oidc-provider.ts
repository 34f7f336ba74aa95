import crypto from "node:crypto";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { db } from "../db";
import { env } from "../env";
import { log } from "../log";
import { cliClient, deviceFlowFeature, DEVICE_POLL_INTERVAL_SECONDS } from "./device-flow";
import { prismaAdapterFactory } from "./oidc-adapter";
import { signingKeys } from "./signing-keys";

/** The console's client at the built-in provider. */
export const CONSOLE_CLIENT_ID = "console";

/** A value derived from SECRET_KEY for one purpose, so no extra secret needs configuring. */
export function derivedSecret(purpose: string): string {
  const secret = env().secretKey;
  if (!secret) throw new Error("SECRET_KEY is not configured (npm start creates one)");
  return crypto.createHmac("sha256", secret).update(purpose).digest("base64url");
}

export const consoleClientSecret = () => derivedSecret("oidc:console-client");

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

const page = (title: string, body: string) => `<!doctype html><html lang="en"><head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#0f172a}
button{background:#0f766e;color:#fff;border:0;border-radius:.375rem;padding:.5rem 1rem;font-size:1rem}</style>
</head><body>${body}</body></html>`;

async function build(): Promise<Provider> {
  const { publicBaseUrl } = env();
  const oidc = env().oidc;
  if (oidc.kind !== "builtin") throw new Error("the built-in provider is off (OIDC_ISSUER is set)");
  const audience = oidc.audience;
  const configuration: Configuration = {
    adapter: prismaAdapterFactory(db),
    clients: [
      {
        client_id: CONSOLE_CLIENT_ID,
        client_secret: consoleClientSecret(),
        redirect_uris: [`${publicBaseUrl}/api/auth/callback/oidc`],
        post_logout_redirect_uris: [`${publicBaseUrl}/`, `${publicBaseUrl}/sign-in`],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      },
      // Scripts and command-line tools: the device authorization grant (server/auth/device-flow.ts).
      cliClient,
    ],
    jwks: await signingKeys(db()),
    cookies: {
      keys: [derivedSecret("oidc:cookies")],
      long: { signed: true, secure: publicBaseUrl.startsWith("https:"), sameSite: "lax" },
      short: { signed: true, secure: publicBaseUrl.startsWith("https:"), sameSite: "lax" },
    },
    pkce: { required: () => true },
    // `screen_hint=signup` opens the sign-up form instead of the sign-in form.
    extraParams: ["screen_hint"],
    findAccount: async (_ctx, sub) => {
      if (!/^\d{1,10}$/.test(sub)) return undefined;
      const user = await db().user.findUnique({ where: { id: Number(sub) } });
      if (!user || user.suspendedAt || user.oidcIssuer) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: user.email,
          email_verified: true,
          name: user.name ?? undefined,
        }),
      };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    interactions: {
      url: (_ctx, interaction) => `${publicBaseUrl}/interaction/${interaction.uid}`,
    },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      DeviceCode: 600,
      IdToken: 3600,
      Interaction: 3600,
      Grant: 14 * 24 * 3600,
      Session: 14 * 24 * 3600,
      RefreshToken: 14 * 24 * 3600,
    },
    features: {
      devInteractions: { enabled: false },
      deviceFlow: deviceFlowFeature(publicBaseUrl),
      rpInitiatedLogout: {
        enabled: true,
        // Signing out of the console ends the provider's session too, without a second question.
        logoutSource: (ctx, form) => {
          ctx.body = page(
            "Signing out",
            `<p>Signing you out…</p>${form.replace("</form>", '<input type="hidden" name="logout" value="yes"><button autofocus type="submit">Sign out</button></form>')}<script>document.forms[0].submit()</script>`,
          );
        },
        postLogoutSuccessSource: (ctx) => {
          ctx.body = page("Signed out", `<p>You are signed out.</p><a href="/">Home</a>`);
        },
      },
      resourceIndicators: {
        enabled: true,
        // Auth.js sends no `resource`: every token is for the /v1 API.
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== audience) throw new Error("unknown resource");
          return {
            scope: "api",
            audience,
            accessTokenFormat: "jwt",
            accessTokenTTL: 3600,
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
    // The console and the command line are first-party: grant them at once, with no consent
    // screen (the device flow has the person confirm the code first).
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const client = ctx.oidc.client;
      const session = ctx.oidc.session;
      if (!client || !session?.accountId) return undefined;
      const existing =
        ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId) ?? undefined;
      if (existing) {
        const grant = await ctx.oidc.provider.Grant.find(existing);
        if (grant) return grant;
      }
      const grant = new ctx.oidc.provider.Grant({
        clientId: client.clientId,
        accountId: session.accountId,
      });
      grant.addOIDCScope("openid email profile offline_access");
      grant.addResourceScope(audience, "api");
      await grant.save();
      session.ensureClientContainer(client.clientId);
      session.grantIdFor(client.clientId, grant.jti);
      return grant;
    },
    renderError: (ctx, out) => {
      ctx.type = "html";
      ctx.body = page(
        "Sign-in error",
        `<h1>Sign-in could not continue</h1><p>${escapeHtml(String(out.error_description ?? out.error))}</p><p><a href="/sign-in">Start again</a></p>`,
      );
    },
  };
  const provider = new Provider(oidc.issuer, configuration);
  // X-Forwarded-For gives the client's address; the host and scheme handleOidc pins to
  // PUBLIC_BASE_URL's (through X-Forwarded-Host and -Proto).
  provider.proxy = true;
  provider.on("server_error", (_ctx, error) => log.error("oidc provider error", { error }));
  // The answer is still being built when this is emitted: state the polling interval (RFC 8628).
  provider.on("device_authorization.success", (_ctx, body) => {
    body.interval = DEVICE_POLL_INTERVAL_SECONDS;
  });
  return provider;
}

const cache = globalThis as unknown as { __oidcProvider?: Promise<Provider> };

/** The built-in provider, built on first use and shared by the process. */
export function oidcProvider(): Promise<Provider> {
  cache.__oidcProvider ??= build().catch((error: unknown) => {
    cache.__oidcProvider = undefined;
    throw error;
  });
  return cache.__oidcProvider;
}
