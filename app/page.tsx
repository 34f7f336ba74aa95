import { env } from "@/server/env";
import { API_VERSIONS, LATEST_VERSION } from "@/server/versions";

export const dynamic = "force-dynamic";

/** The landing page: sign in to the console, and where the API and the OCPP endpoint are. */
export default function Home() {
  const { publicBaseUrl, ocppPublicUrl, serviceEnv } = env();
  return (
    <main className="mx-auto max-w-3xl px-4 py-12">
      <h1 className="text-3xl font-semibold tracking-tight">Charge Cloud</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">
        Charging-station management for operators ({serviceEnv}).
      </p>
      <p className="mt-6 flex flex-wrap gap-3">
        <a
          href="/console"
          className="rounded-md bg-teal-700 px-4 py-2 font-medium text-white hover:bg-teal-800 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:ring-offset-2 focus-visible:outline-none"
        >
          Open the console
        </a>
        <a
          href="/sign-in"
          className="rounded-md border border-slate-300 px-4 py-2 font-medium hover:bg-slate-100 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none dark:border-slate-700 dark:hover:bg-slate-800"
        >
          Sign in or create an account
        </a>
      </p>
      <dl className="mt-8 grid gap-4 sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium">API base URL</dt>
        <dd>
          <code className="rounded bg-slate-200 px-1.5 py-0.5 dark:bg-slate-800">
            {publicBaseUrl}/v1
          </code>
        </dd>
        <dt className="font-medium">OpenAPI document</dt>
        <dd>
          <a className="text-blue-700 underline dark:text-blue-400" href="/v1/openapi.json">
            /v1/openapi.json
          </a>{" "}
          (version {LATEST_VERSION}; supported {API_VERSIONS.join(", ")})
        </dd>
        <dt className="font-medium">OCPP endpoint</dt>
        <dd>
          <code className="rounded bg-slate-200 px-1.5 py-0.5 dark:bg-slate-800">
            {ocppPublicUrl}/ocpp/&lt;station name&gt;
          </code>
        </dd>
      </dl>
      <section className="mt-10">
        <h2 className="text-xl font-semibold">First call</h2>
        <pre
          className="mt-3 overflow-x-auto rounded bg-slate-900 p-4 text-sm text-slate-100 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none"
          tabIndex={0}
          aria-label="First call commands"
        >
          {`npm run admin -- bootstrap --email you@example.com --team "My team" --project "My project"
curl -H "Authorization: Bearer <api_key.secret>" ${publicBaseUrl}/v1/access`}
        </pre>
      </section>
    </main>
  );
}
