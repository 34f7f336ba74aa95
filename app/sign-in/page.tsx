import { redirect } from "next/navigation";
import { AuthCard, primaryButton, secondaryButton } from "@/components/auth/auth-card";
import { currentUser } from "@/server/access/current-user";
import { env } from "@/server/env";

export const dynamic = "force-dynamic";

const ERRORS: Record<string, string> = {
  OAuthSignin: "Sign-in could not start. Try again.",
  OAuthCallbackError: "The identity provider refused the sign-in. Try again.",
  Configuration: "Sign-in is misconfigured on this server; tell its operator.",
  AccessDenied: "Access was denied.",
};

/** Sign-in: hands over to the configured OpenID Connect provider (the built-in one by default). */
export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ error?: string }>;
}) {
  if (await currentUser()) redirect("/console");
  const { error } = await searchParams;
  const builtin = env().oidc.kind === "builtin";

  return (
    <AuthCard title="Sign in to the console">
      {error ? (
        <p
          role="alert"
          className="mb-4 rounded bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {ERRORS[error] ?? "Sign-in did not complete. Try again."}
        </p>
      ) : null}
      <form method="post" action="/sign-in/start" className="space-y-3">
        <button
          type="submit"
          name="screen"
          value="signin"
          className={primaryButton}
          data-testid="sign-in"
        >
          Sign in
        </button>
        {builtin ? (
          <button
            type="submit"
            name="screen"
            value="signup"
            className={secondaryButton}
            data-testid="sign-up"
          >
            Create an account
          </button>
        ) : null}
      </form>
      <p className="mt-6 text-sm text-slate-600 dark:text-slate-400">
        {builtin
          ? "Accounts are kept by this installation. Signing in grants no access by itself: create a workspace or accept an invitation next."
          : "You sign in with your organisation's identity provider."}
      </p>
    </AuthCard>
  );
}
