import Link from "next/link";

/**
 * The page for an address that leads nowhere (the app's and the console's 404): says so in words,
 * shows the address asked for, and offers the ways back.
 */
export function NotFoundView({ inConsole }: { inConsole: boolean }) {
  const link =
    "rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-100 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none dark:border-slate-700 dark:hover:bg-slate-800";
  return (
    <section data-testid="not-found" className="mx-auto max-w-2xl px-4 py-12">
      <p className="text-sm font-semibold text-teal-800 dark:text-teal-300">404</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight">This page does not exist</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">
        {inConsole
          ? "The address may be mistyped, or what it pointed to was deleted or belongs to a project you are not in."
          : "The address may be mistyped, or the page has moved."}
      </p>
      <p className="mt-6 flex flex-wrap gap-3">
        <Link
          href="/console"
          className="rounded-md bg-teal-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-teal-800 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:ring-offset-1 focus-visible:outline-none"
        >
          {inConsole ? "Your projects" : "Open the console"}
        </Link>
        <Link href="/" className={link}>
          Home
        </Link>
      </p>
    </section>
  );
}
