import { providerSignOutUrl, signOut } from "@/server/auth/next-auth";
import { env } from "@/server/env";

export const dynamic = "force-dynamic";

/** Ends the console session, then the identity provider's session, then lands on /sign-in. */
export async function POST(request: Request) {
  const origin = request.headers.get("origin");
  if (origin && origin !== new URL(env().publicBaseUrl).origin) {
    return new Response("Cross-site sign-out refused.", { status: 403 });
  }
  await signOut({ redirect: false });
  const next = (await providerSignOutUrl()) ?? `${env().publicBaseUrl}/sign-in`;
  return new Response(null, { status: 303, headers: { Location: next } });
}
