"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState, type ReactNode } from "react";
import { useMe, type MeContext } from "./context";

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const path = usePathname();
  const active = path === href || path.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      aria-current={active ? "page" : undefined}
      className={`block rounded-md px-3 py-2 text-sm focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none ${
        active
          ? "bg-teal-50 font-semibold text-teal-900 dark:bg-teal-950 dark:text-teal-100"
          : "hover:bg-slate-100 dark:hover:bg-slate-800"
      }`}
    >
      {children}
    </Link>
  );
}

/** The signed-in frame: top bar with team and project switcher, side navigation, sign-out. */
export function ConsoleShell({ children }: { children: ReactNode }) {
  const path = usePathname();
  const me = useMe();
  const data = me.data as MeContext | undefined;
  const [open, setOpen] = useState(false);
  const tenantMatch = /^\/console\/t\/(\d+)/.exec(path);
  const teamMatch = /^\/console\/teams\/(\d+)/.exec(path);
  const tenantId = tenantMatch ? Number(tenantMatch[1]) : null;
  const team =
    data?.teams.find((t) => t.projects.some((p) => p.id === tenantId)) ??
    data?.teams.find((t) => t.id === Number(teamMatch?.[1])) ??
    data?.teams[0];
  const project = team?.projects.find((p) => p.id === tenantId) ?? null;
  const section = tenantMatch ? path.slice(tenantMatch[0].length) || "/stations" : "/stations";
  const sectionRoot = `/${section.split("/")[1] ?? "stations"}`;

  return (
    <div className="min-h-screen">
      <header className="sticky top-0 z-10 border-b border-slate-200 bg-white/95 backdrop-blur dark:border-slate-800 dark:bg-slate-950/95">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-3 px-4 py-2">
          <button
            type="button"
            className="rounded-md border border-slate-300 px-2 py-1 text-sm md:hidden dark:border-slate-700"
            aria-expanded={open}
            aria-controls="console-nav"
            onClick={() => setOpen((o) => !o)}
          >
            Menu
          </button>
          <Link href="/console" className="font-semibold text-teal-800 dark:text-teal-300">
            Charge Cloud
          </Link>
          {data && data.teams.length ? (
            <nav
              aria-label="Team and project"
              className="flex flex-wrap items-center gap-2 text-sm"
            >
              <label className="sr-only" htmlFor="team-switcher">
                Team
              </label>
              <select
                id="team-switcher"
                data-testid="team-switcher"
                className="rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900"
                value={team?.id ?? ""}
                onChange={(e) => {
                  const next = data.teams.find((t) => t.id === Number(e.target.value));
                  const first = next?.projects[0];
                  window.location.assign(
                    first
                      ? `/console/t/${first.id}/stations`
                      : `/console/teams/${next?.id}/projects`,
                  );
                }}
              >
                {data.teams.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
              <span aria-hidden>/</span>
              <label className="sr-only" htmlFor="project-switcher">
                Project
              </label>
              <select
                id="project-switcher"
                data-testid="project-switcher"
                className="rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900"
                value={project?.id ?? ""}
                onChange={(e) =>
                  window.location.assign(`/console/t/${e.target.value}${sectionRoot}`)
                }
              >
                {!project ? <option value="">Choose a project</option> : null}
                {team?.projects.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </nav>
          ) : null}
          <div className="ml-auto flex items-center gap-3 text-sm">
            {data?.pending_invites ? (
              <Link href="/console/invites" className="text-teal-800 underline dark:text-teal-300">
                Invitations ({data.pending_invites})
              </Link>
            ) : null}
            <span
              className="hidden text-slate-600 sm:inline dark:text-slate-400"
              data-testid="signed-in-as"
            >
              {data?.user.email}
            </span>
            <form method="post" action="/sign-out">
              <button
                type="submit"
                className="rounded-md border border-slate-300 px-2 py-1 hover:bg-slate-100 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none dark:border-slate-700 dark:hover:bg-slate-800"
              >
                Sign out
              </button>
            </form>
          </div>
        </div>
      </header>
      <div className="mx-auto flex max-w-7xl gap-6 px-4 py-6">
        <nav
          id="console-nav"
          aria-label="Console"
          className={`${open ? "block" : "hidden"} fixed inset-x-0 top-12 z-20 border-b border-slate-200 bg-white p-3 md:static md:block md:w-52 md:shrink-0 md:border-0 md:bg-transparent md:p-0 dark:border-slate-800 dark:bg-slate-950 md:dark:bg-transparent`}
          onClick={() => setOpen(false)}
        >
          {project ? (
            <>
              <p className="px-3 pb-1 text-xs font-semibold text-slate-500 uppercase">Project</p>
              {[
                ["stations", "Stations"],
                ["locations", "Locations"],
                ["transactions", "Transactions"],
                ["events", "Events"],
                ["webhooks", "Webhooks"],
                ["tariffs", "Tariffs"],
                ["api-keys", "API keys"],
                ["settings", "Settings"],
              ].map(([href, label]) => (
                <NavLink key={href} href={`/console/t/${project.id}/${href}`}>
                  {label}
                </NavLink>
              ))}
            </>
          ) : null}
          {team ? (
            <>
              <p className="mt-4 px-3 pb-1 text-xs font-semibold text-slate-500 uppercase">Team</p>
              <NavLink href={`/console/teams/${team.id}/projects`}>Projects</NavLink>
              <NavLink href={`/console/teams/${team.id}/members`}>Members and invites</NavLink>
            </>
          ) : null}
          <p className="mt-4 px-3 pb-1 text-xs font-semibold text-slate-500 uppercase">You</p>
          <NavLink href="/console/invites">Invitations</NavLink>
        </nav>
        <main className="min-w-0 flex-1">{children}</main>
      </div>
    </div>
  );
}
