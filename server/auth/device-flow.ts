import crypto from "node:crypto";
import type { ClientMetadata, Configuration, KoaContextWithOIDC } from "oidc-provider";
import { db } from "../db";
import { clientAddress } from "../lib/client-address";
import { countAttempt } from "../lib/rate-limit";

/**
 * A person's token for scripts and command-line tools: the device authorization grant (RFC 8628)
 * at the built-in provider. A script asks for a code (`POST /oidc/device/auth`), the person
 * enters it at `/oidc/device` in any browser, signs in and confirms, and the script, polling the
 * token endpoint, receives the same access token the console's client gets (audience
 * `${PUBLIC_BASE_URL}/v1`, RS256 `at+jwt`, one hour). No refresh token: the console gets none
 * either, so a script runs the flow again after an hour.
 *
 * Why this grant and not a public client with a loopback redirect (RFC 8252): it works where the
 * browser is on another machine (SSH, a container), and the person confirms every request; the
 * provider grants its first-party clients without a consent screen, so a loopback client would
 * hand a token to any local program that opens the browser while the person is signed in.
 */
export const CLI_CLIENT_ID = "cli";
export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** The polling interval the device authorization answer states (RFC 8628's default too). */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
/** Device authorizations a minute per client address. */
export const DEVICE_AUTHORIZATIONS_PER_MINUTE = 20;
/** Posts of the code page a minute (entering a code, confirming, canceling): per address, and all together. */
export const CODE_ENTRIES_PER_MINUTE = 20;
export const CODE_ENTRIES_PER_MINUTE_ALL = 1000;
/**
 * Token requests a minute per device code; polling faster than every 4 s on average is answered
 * `slow_down` (RFC 8628 section 3.5).
 */
export const POLLS_PER_MINUTE = 15;

/**
 * The public client (no secret: a script cannot keep one) that may use only this grant. User
 * codes are 8 of 20 consonants (20^8 ≈ 2.6 × 10^10) and live 10 minutes; with every address
 * together limited to 1,000 code entries a minute, guessing any one pending code succeeds with a
 * chance below 4 × 10^-7.
 */
export const cliClient: ClientMetadata = {
  client_id: CLI_CLIENT_ID,
  client_name: "Charge Cloud command line",
  // Not `native`: oidc-provider asks native clients for consent at every sign-in, and the
  // person's confirmation of the code on the code page is that consent already.
  application_type: "web",
  token_endpoint_auth_method: "none",
  grant_types: [DEVICE_CODE_GRANT],
  response_types: [],
  redirect_uris: [],
};

/** Why the code page was shown again: one of these, as `error` in its query. */
export const CODE_PAGE_ERRORS = [
  "not_found",
  "expired",
  "used",
  "canceled",
  "no_code",
  "page_expired",
  "rate_limited",
] as const;
export type CodePageError = (typeof CODE_PAGE_ERRORS)[number];

function codePageError(err: Error): CodePageError {
  switch (err.name) {
    case "NotFoundError":
      return "not_found";
    case "ExpiredError":
      return "expired";
    case "AlreadyUsedError":
      return "used";
    case "AbortedError":
      return "canceled";
    case "NoCodeError":
      return "no_code";
    default:
      // The form's xsrf token no longer matches the provider's session (an old tab, a new session).
      return "page_expired";
  }
}

/** Where the device's request came from, as the code page shows it (the nearest hop's entry). */
const requestedFrom = (ctx: KoaContextWithOIDC) =>
  ((ctx.get("x-forwarded-for") || "").split(",").at(-1)?.trim() || ctx.request.ip).replace(
    /^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/,
    "",
  );

/** What the confirmation step shows, kept in the provider's session (never taken from the URL). */
export type PendingConfirmation = { userCode: string; ip: string; userAgent: string };

/**
 * The provider's device-flow pages are the product's own page at `/device` (app/device): each
 * step the provider would render sends the browser there instead. The forms on that page post to
 * the provider's `/oidc/device` with the xsrf token the provider keeps in its session.
 */
export function deviceFlowFeature(
  publicBaseUrl: string,
): NonNullable<NonNullable<Configuration["features"]>["deviceFlow"]> {
  const show = (ctx: KoaContextWithOIDC, query: Record<string, string>) => {
    ctx.status = 303;
    ctx.redirect(`${publicBaseUrl}/device?${new URLSearchParams(query)}`);
  };
  return {
    enabled: true,
    charset: "base-20",
    mask: "****-****",
    deviceInfo: (ctx) => ({ ip: requestedFrom(ctx), userAgent: ctx.get("user-agent") }),
    userCodeInputSource: (ctx, _form, _out, err) => {
      const userCode = (err as { userCode?: unknown } | undefined)?.userCode;
      show(ctx, {
        step: "code",
        ...(err ? { error: codePageError(err) } : {}),
        ...(typeof userCode === "string" ? { user_code: userCode.slice(0, 20) } : {}),
      });
    },
    userCodeConfirmSource: (ctx, _form, _client, deviceInfo, userCode) => {
      const text = (value: unknown) => (typeof value === "string" ? value.slice(0, 200) : "");
      const confirmation: PendingConfirmation = {
        userCode,
        ip: text(deviceInfo.ip),
        userAgent: text(deviceInfo.userAgent),
      };
      ctx.oidc.session!.state = { ...ctx.oidc.session!.state, confirmation };
      show(ctx, { step: "confirm" });
    },
    successSource: (ctx) => show(ctx, { step: "done" }),
  };
}

export type CodePageView = {
  /** the provider's xsrf token for the forms; null when the browser has no provider session */
  xsrf: string | null;
  confirmation: PendingConfirmation | null;
  /** the person the provider's session is signed in as, if any */
  signedInAs: string | null;
};

/** What the code page needs from the provider's session, found by its cookie's value. */
export async function codePageView(
  sessionId: string | undefined,
  provider: {
    Session: { find(id: string): Promise<{ state?: unknown; accountId?: string } | undefined> };
  },
): Promise<CodePageView> {
  const session = sessionId ? await provider.Session.find(sessionId) : undefined;
  const state = (session?.state ?? {}) as { secret?: unknown; confirmation?: PendingConfirmation };
  const accountId = session?.accountId;
  const user =
    accountId && /^\d{1,10}$/.test(accountId)
      ? await db().user.findUnique({ where: { id: Number(accountId) } })
      : null;
  return {
    xsrf: typeof state.secret === "string" ? state.secret : null,
    confirmation: state.confirmation ?? null,
    signedInAs: user?.email ?? null,
  };
}

const oauthError = (status: number, error: string, description: string, retryAfter?: number) =>
  new Response(JSON.stringify({ error, error_description: description }), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...(retryAfter ? { "retry-after": String(retryAfter) } : {}),
    },
  });

/** True when this attempt is within the limit (the shared one-minute window table). */
const withinLimit = async (bucket: string, limit: number) =>
  !(await countAttempt(db(), bucket.slice(0, 200), limit)).exceeded;

const secondsLeftInMinute = () => Math.max(1, Math.ceil((60_000 - (Date.now() % 60_000)) / 1000));

/**
 * The device flow's limits, which oidc-provider leaves to the deployment: device authorizations
 * per address, code-page posts per address and in all (user-code guessing), and polls per
 * device code (`slow_down`). Answers the refusal, or null to let the request through. `path` is
 * the provider's own (without `/oidc`), `body` the request's form.
 */
export async function deviceFlowLimit(
  request: Request,
  path: string,
  body: Buffer | null,
  publicBaseUrl: string,
): Promise<Response | null> {
  if (request.method !== "POST") return null;
  const address = clientAddress(request);
  if (path === "/device/auth") {
    if (await withinLimit(`device-auth:${address}`, DEVICE_AUTHORIZATIONS_PER_MINUTE)) return null;
    const wait = secondsLeftInMinute();
    return oauthError(
      429,
      "rate_limited",
      `Too many device authorizations from this address; retry after ${wait} s.`,
      wait,
    );
  }
  if (path === "/device") {
    const allowed =
      (await withinLimit(`device-code:${address}`, CODE_ENTRIES_PER_MINUTE)) &&
      (await withinLimit("device-code:all", CODE_ENTRIES_PER_MINUTE_ALL));
    if (allowed) return null;
    return new Response(null, {
      status: 303,
      headers: {
        location: `${publicBaseUrl}/device?step=code&error=rate_limited`,
        "cache-control": "no-store",
      },
    });
  }
  if (path === "/token") {
    const form = new URLSearchParams(body?.toString("utf8") ?? "");
    const deviceCode = form.get("device_code");
    if (form.get("grant_type") !== DEVICE_CODE_GRANT || !deviceCode) return null;
    const digest = crypto.createHash("sha256").update(deviceCode).digest("base64url");
    if (await withinLimit(`device-poll:${digest}`, POLLS_PER_MINUTE)) return null;
    return oauthError(
      400,
      "slow_down",
      `Poll at most every ${DEVICE_POLL_INTERVAL_SECONDS} s, and 5 s more after each slow_down.`,
    );
  }
  return null;
}
