import Link from "next/link";
import { AuthCard, Field, primaryButton } from "@/components/auth/auth-card";
import { oidcProvider } from "@/server/auth/oidc-provider";

export const dynamic = "force-dynamic";

/**
 * The built-in provider's login prompt: sign in with email and password, or create an account.
 * Forms post to ./login and ./signup, which finish the provider's interaction.
 */
export default async function InteractionPage({
  params,
  searchParams,
}: {
  params: Promise<{ uid: string }>;
  searchParams: Promise<{
    mode?: string;
    error?: string;
    field?: string;
    email?: string;
    name?: string;
  }>;
}) {
  const { uid } = await params;
  const query = await searchParams;
  const interaction = await (await oidcProvider()).Interaction.find(uid);
  if (!interaction) {
    return (
      <AuthCard title="This sign-in has expired">
        <p>Sign-in pages are valid for an hour.</p>
        <Link className="mt-4 inline-block text-teal-700 underline" href="/sign-in">
          Start again
        </Link>
      </AuthCard>
    );
  }
  const signup =
    query.mode === "signup" ||
    (query.mode !== "signin" && interaction.params.screen_hint === "signup");
  const fieldError = (name: string) => (query.error && query.field === name ? query.error : null);
  const formError = query.error && !query.field ? query.error : null;
  const base = `/interaction/${encodeURIComponent(uid)}`;

  return (
    <AuthCard title={signup ? "Create your account" : "Sign in"}>
      {formError ? (
        <p
          role="alert"
          className="mb-4 rounded bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {formError}
        </p>
      ) : null}
      <form method="post" action={`${base}/${signup ? "signup" : "login"}`} noValidate={false}>
        {signup ? (
          <Field
            label="Name"
            name="name"
            autoComplete="name"
            defaultValue={query.name}
            error={fieldError("name")}
          />
        ) : null}
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          defaultValue={query.email}
          error={fieldError("email")}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete={signup ? "new-password" : "current-password"}
          error={fieldError("password")}
        />
        {signup ? (
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">At least 10 characters.</p>
        ) : null}
        <button type="submit" className={`${primaryButton} mt-6`}>
          {signup ? "Create account" : "Sign in"}
        </button>
      </form>
      <p className="mt-6 text-sm">
        {signup ? "Already have an account? " : "New here? "}
        <Link
          className="text-teal-700 underline dark:text-teal-400"
          href={`${base}?mode=${signup ? "signin" : "signup"}`}
        >
          {signup ? "Sign in" : "Create an account"}
        </Link>
      </p>
    </AuthCard>
  );
}
