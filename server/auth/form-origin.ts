import { env } from "../env";

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null; // "null", sent by sandboxed frames and after cross-origin redirects
  }
}

/**
 * The CSRF check of the sign-in form (POST /sign-in/start): a browser's Origin must be
 * PUBLIC_BASE_URL's. The form of this server opened under another name (its Origin is the
 * request's own host) is sent to the sign-in page at the configured address, where the flow's
 * cookies will belong; any other origin is refused. Clients that send no Origin pass.
 * Null when the request may go ahead.
 */
export function refuseOtherOrigin(request: Request): Response | null {
  const origin = request.headers.get("origin");
  const { publicBaseUrl } = env();
  if (!origin || origin === new URL(publicBaseUrl).origin) return null;
  const host = (request.headers.get("x-forwarded-host") ?? request.headers.get("host") ?? "")
    .split(",")[0]
    ?.trim()
    .toLowerCase();
  if (host && hostOf(origin) === host) {
    return new Response(null, {
      status: 303,
      headers: { Location: `${publicBaseUrl}/sign-in`, "Cache-Control": "no-store" },
    });
  }
  return new Response("Cross-site sign-in refused.", { status: 403 });
}
