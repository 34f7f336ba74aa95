import { signIn } from "@/server/auth/next-auth";
import { env } from "@/server/env";

export const dynamic = "force-dynamic";

/**
 * Starts sign-in (or sign-up) at the identity provider with a full-page redirect. A plain route
 * rather than a server action: a server action's redirect to a same-origin path is followed by the
 * client router, which the provider's pages must not be rendered through.
 */
export async function POST(request: Request) {
  const origin = request.headers.get("origin");
  if (origin && origin !== new URL(env().publicBaseUrl).origin) {
    return new Response("Cross-site sign-in refused.", { status: 403 });
  }
  const form = await request.formData().catch(() => null);
  const signup = form?.get("screen") === "signup";
  const url = (await signIn(
    "oidc",
    { redirect: false, redirectTo: "/console" },
    signup ? { screen_hint: "signup" } : {},
  )) as string;
  return new Response(null, { status: 303, headers: { Location: url } });
}
