import { startSignIn } from "@/server/auth/next-auth";
import { refuseOtherOrigin } from "@/server/auth/form-origin";

export const dynamic = "force-dynamic";

/**
 * Starts sign-in (or sign-up) at the identity provider with a full-page redirect. A plain route
 * rather than a server action: a server action's redirect to a same-origin path is followed by the
 * client router, which the provider's pages must not be rendered through.
 */
export async function POST(request: Request) {
  const refused = refuseOtherOrigin(request);
  if (refused) return refused;
  const form = await request.formData().catch(() => null);
  return startSignIn(form?.get("screen") === "signup" ? { screen_hint: "signup" } : {});
}
