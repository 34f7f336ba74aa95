import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { AuthCard, Field, primaryButton, secondaryButton } from "@/components/auth/auth-card";
import { codePageView, type CodePageError } from "@/server/auth/device-flow";
import { oidcProvider } from "@/server/auth/oidc-provider";
import { env } from "@/server/env";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in a device · Charge Cloud" };

const ERRORS: Record<CodePageError, string> = {
  not_found: "That code is not valid. Check it against the one your terminal shows.",
  expired: "That code has expired. Start again in your terminal for a new one.",
  used: "That code has already been used. Start again in your terminal for a new one.",
  canceled: "Sign-in canceled: nothing was granted. Start again in your terminal if you meant it.",
  no_code: "Enter the code your terminal shows.",
  page_expired: "This page had expired. Enter the code again.",
  rate_limited: "Too many attempts from here; wait a minute and try again.",
};

const alert = (text: string) => (
  <p
    role="alert"
    className="mb-4 rounded bg-red-50 p-3 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
  >
    {text}
  </p>
);

/**
 * The device authorization grant's pages (server/auth/device-flow.ts): enter the code a script
 * shows, confirm it, done. The built-in provider sends each of its steps here (`step`), and the
 * forms post back to it at /oidc/device with the xsrf token it keeps in its session.
 */
export default async function DevicePage({
  searchParams,
}: {
  searchParams: Promise<{ step?: string; error?: string; user_code?: string }>;
}) {
  const query = await searchParams;
  if (env().oidc.kind !== "builtin") {
    return (
      <AuthCard title="Sign in a device">
        <p>This installation signs people in with another identity provider; ask it for tokens.</p>
      </AuthCard>
    );
  }
  if (query.step === "done") {
    return (
      <AuthCard title="Your device is signed in">
        <p>Return to your terminal: it receives its token within a few seconds.</p>
        <p className="mt-4 text-sm text-slate-600 dark:text-slate-400">You can close this page.</p>
      </AuthCard>
    );
  }
  // Opened directly: the provider starts the step (its session and xsrf token) and comes back.
  if (query.step !== "code" && query.step !== "confirm") redirect("/oidc/device");

  const provider = await oidcProvider();
  const sessionId = (await cookies()).get(provider.cookieName("session"))?.value;
  const view = await codePageView(sessionId, provider);
  if (!view.xsrf) {
    return (
      <AuthCard title="Sign in a device">
        {alert("This page needs cookies to continue. Allow them for this site and reload.")}
        <a className="text-teal-700 underline dark:text-teal-400" href="/oidc/device">
          Start again
        </a>
      </AuthCard>
    );
  }
  const action = "/oidc/device";
  const error = ERRORS[query.error as CodePageError] as string | undefined;

  if (query.step === "confirm" && view.confirmation) {
    const { userCode, ip, userAgent } = view.confirmation;
    return (
      <AuthCard title="Sign in a device?">
        <p>A script or command-line tool asks to act as you on this installation&apos;s API.</p>
        <p className="mt-4 text-sm text-slate-600 dark:text-slate-400">
          Continue only if your terminal shows this code:
        </p>
        <p
          className="mt-1 font-mono text-3xl font-semibold tracking-widest"
          data-testid="user-code"
        >
          {userCode}
        </p>
        <dl className="mt-4 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
          <dt className="text-slate-600 dark:text-slate-400">Requested from</dt>
          <dd>{ip || "unknown"}</dd>
          <dt className="text-slate-600 dark:text-slate-400">Program</dt>
          <dd className="break-all">{userAgent || "unknown"}</dd>
          {view.signedInAs ? (
            <>
              <dt className="text-slate-600 dark:text-slate-400">Signed in as</dt>
              <dd className="break-all">{view.signedInAs}</dd>
            </>
          ) : null}
        </dl>
        <form method="post" action={action} className="mt-6 space-y-3">
          <input type="hidden" name="xsrf" value={view.xsrf} />
          <input type="hidden" name="user_code" value={userCode} />
          <button type="submit" name="confirm" value="yes" className={primaryButton}>
            {view.signedInAs ? "Continue" : "Continue and sign in"}
          </button>
          <button type="submit" name="abort" value="yes" className={secondaryButton}>
            Cancel
          </button>
        </form>
        <p className="mt-6 text-sm text-slate-600 dark:text-slate-400">
          The tool gets a token for one hour with your access: the projects and roles you hold.
        </p>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Sign in a device">
      {error ? alert(error) : null}
      <form method="post" action={action}>
        <input type="hidden" name="xsrf" value={view.xsrf} />
        <Field
          label="Code shown in your terminal"
          name="user_code"
          autoComplete="off"
          defaultValue={query.user_code}
        />
        <button type="submit" className={`${primaryButton} mt-6`}>
          Next
        </button>
      </form>
      <p className="mt-6 text-sm text-slate-600 dark:text-slate-400">
        A script asked for a token with <code>POST /oidc/device/auth</code>; it shows a code like
        WDJB-MJHT. Next you check where the request came from, then sign in.
      </p>
    </AuthCard>
  );
}
