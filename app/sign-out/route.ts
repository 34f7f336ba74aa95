import { providerSignOutUrl } from "@/server/auth/next-auth";
import { env } from "@/server/env";

export const dynamic = "force-dynamic";

/** Ends the console session, then the identity provider's session, then lands on /sign-in. */
export async function POST(request: Request) {
  const origin = request.headers.get("origin");
  if (origin && origin !== new URL(env().publicBaseUrl).origin) {
    return new Response("Cross-site sign-out refused.", { status: 403 });
  }
  const next = (await providerSignOutUrl()) ?? `${env().publicBaseUrl}/sign-in`;
  const headers = new Headers({ Location: next, "Cache-Control": "no-store" });
  // The console session is a JWT cookie (possibly in chunks): expiring it ends the session.
  const secure = env().publicBaseUrl.startsWith("https:");
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const name = part.split("=")[0]?.trim();
    if (name && /^(__Secure-)?authjs\.session-token(\.\d+)?$/.test(name)) {
      headers.append(
        "Set-Cookie",
        `${name}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
      );
    }
  }
  return new Response(null, { status: 303, headers });
}
