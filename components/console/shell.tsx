"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { useMe, useProjectAccess } from "./context";
import { StandingBanner } from "./pages/team-billing";
import { useTRPC } from "./trpc";

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const path = usePathname();
  const target = href.split("?")[0] ?? href;
  const active = path === target || path.startsWith(`${target}/`);
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

type SwitcherItem = { href: string; label: string; current: boolean };

/**
 * A disclosure button that opens a list of links (WAI-ARIA disclosure navigation): Tab moves through
 * the links, Enter follows one, Escape or a click elsewhere closes the list. Links, unlike a
 * select that navigates on change, never move the person while they browse with the arrow keys.
 */
function Switcher({
  label,
  current,
  items,
  testId,
  footer,
}: {
  label: string;
  current: string;
  items: SwitcherItem[];
  testId: string;
  footer?: SwitcherItem;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const path = usePathname();
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const escape = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener("mousedown", away);
    document.addEventListener("keydown", escape);
    return () => {
      document.removeEventListener("mousedown", away);
      document.removeEventListener("keydown", escape);
    };
  }, [open]);
  const link = (item: SwitcherItem) => (
    <Link
      href={item.href}
      aria-current={item.current ? "page" : undefined}
      onClick={() => setOpen(false)}
      className={`block rounded px-3 py-1.5 hover:bg-slate-100 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none dark:hover:bg-slate-800 ${
        item.current ? "font-semibold text-teal-900 dark:text-teal-100" : ""
      }`}
    >
      {item.label}
    </Link>
  );
  return (
    <div ref={box} className="relative">
      <button
        ref={button}
        type="button"
        data-testid={testId}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
        className="flex max-w-[12rem] items-center gap-1 rounded-md border border-slate-300 bg-white px-2 py-1 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none sm:max-w-xs dark:border-slate-700 dark:bg-slate-900"
      >
        <span className="sr-only">{label}: </span>
        <span className="truncate">{current}</span>
        <span aria-hidden className="text-xs text-slate-500">
          ▾
        </span>
      </button>
      {open ? (
        <div
          id={id}
          className="absolute left-0 z-30 mt-1 max-h-80 w-64 max-w-[calc(100vw-2rem)] overflow-auto rounded-md border border-slate-200 bg-white p-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <p className="px-3 py-1 text-xs font-semibold text-slate-500 uppercase">{label}</p>
          <ul>
            {items.map((item) => (
              <li key={item.href}>{link(item)}</li>
            ))}
          </ul>
          {footer ? (
            <div className="mt-1 border-t border-slate-200 pt-1 dark:border-slate-700">
              {link(footer)}
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** Where the project last visited in this tab is remembered (its id and the page's path). */
const LAST_PROJECT = "console:last-project";

/**
 * The project the team pages were reached from: `?from=` (the team links of the shell carry it),
 * else the project last visited in this tab, if it belongs to the team. A project page
 * remembers itself; the team pages keep the project's navigation and a link back to it.
 */
function useProjectContext(tenantId: number | null, path: string) {
  const from = Number(useSearchParams().get("from"));
  const [remembered, setRemembered] = useState<{ id: number; path: string } | null>(null);
  useEffect(() => {
    try {
      if (tenantId !== null) {
        window.sessionStorage.setItem(LAST_PROJECT, JSON.stringify({ id: tenantId, path }));
        return;
      }
      const raw = window.sessionStorage.getItem(LAST_PROJECT);
      const parsed: unknown = raw ? JSON.parse(raw) : null;
      if (
        typeof parsed === "object" &&
        parsed !== null &&
        "id" in parsed &&
        "path" in parsed &&
        typeof parsed.id === "number" &&
        typeof parsed.path === "string" &&
        parsed.path.startsWith(`/console/t/${parsed.id}`)
      )
        setRemembered({ id: parsed.id, path: parsed.path });
    } catch {
      // storage unavailable (private mode, blocked): `?from=` still carries the context
    }
  }, [tenantId, path]);
  if (Number.isSafeInteger(from) && from > 0)
    return {
      id: from,
      path: remembered?.id === from ? remembered.path : `/console/t/${from}/overview`,
    };
  return remembered;
}

const TEAM_PAGES: Record<string, string> = {
  projects: "Projects",
  members: "Members and invites",
  billing: "Billing",
};

/** Team roles that read the team's Billing page (server/access/roles.ts, `readBilling`). */
const BILLING_READERS = ["owner", "admin", "billing"];

/**
 * Where a team's name leads: its first project, or, for a billing member (who reads no project's
 * data), its Billing page; a team without projects, its projects page.
 */
export function teamHome(team: { id: number; role: string | null; projects: { id: number }[] }) {
  if (team.role === "billing") return `/console/teams/${team.id}/billing`;
  return team.projects[0]
    ? `/console/t/${team.projects[0].id}/overview`
    : `/console/teams/${team.id}/projects`;
}

/** The team's billing standing, for the banner on its other pages: only for those who read it. */
function useTeamStanding(team: { id: number; role: string | null } | undefined) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.v1.getTeamBilling.queryOptions({ params: { team_id: team?.id ?? 0 } }),
    enabled: Boolean(team && BILLING_READERS.includes(team.role ?? "")),
    retry: false,
    staleTime: 60_000,
  });
}

/** The signed-in frame: top bar with team and project switcher, side navigation, sign-out. */
export function ConsoleShell({ children }: { children: ReactNode }) {
  const path = usePathname();
  const me = useMe();
  const data = me.data;
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  const tenantMatch = /^\/console\/t\/(\d+)/.exec(path);
  const teamMatch = /^\/console\/teams\/(\d+)(?:\/([a-z-]+))?/.exec(path);
  const tenantId = tenantMatch ? Number(tenantMatch[1]) : null;
  const context = useProjectContext(tenantId, path);
  const memberTeam =
    data?.teams.find((t) => t.projects.some((p) => p.id === tenantId)) ??
    data?.teams.find((t) => t.id === Number(teamMatch?.[1]));
  const team = memberTeam ?? (tenantId === null ? data?.teams[0] : undefined);
  // On a team's pages, the project they were reached from (one of this team's) stays the
  // project of the navigation, so the way back is one click.
  const contextProject =
    teamMatch && context ? (team?.projects.find((p) => p.id === context.id) ?? null) : null;
  const memberProject = team?.projects.find((p) => p.id === tenantId) ?? contextProject;
  // A project of a team the person is not in: platform staff reach it through their platform role.
  const outside = useProjectAccess(data && tenantId !== null && !memberProject ? tenantId : null);
  const staffProject = outside.data;
  // A billing member reads the team's billing and no project's data: no project links for them.
  const billingOnly = team?.role === "billing";
  const project = billingOnly
    ? null
    : (memberProject ?? (staffProject ? { id: staffProject.tenant_id } : null));
  const standing = useTeamStanding(team);
  const showBanner =
    standing.data?.enabled && standing.data.status !== "active" && teamMatch?.[2] !== "billing";
  const section = tenantMatch ? path.slice(tenantMatch[0].length) || "/stations" : "/stations";
  const sectionRoot = `/${section.split("/")[1] ?? "stations"}`;
  // Team links keep the project they leave from.
  const fromQuery = memberProject ? `?from=${memberProject.id}` : "";
  const teamPage = teamMatch ? TEAM_PAGES[teamMatch[2] ?? ""] : undefined;

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
          {staffProject && !memberProject ? (
            <p className="flex flex-wrap items-center gap-2 text-sm" data-testid="platform-access">
              {staffProject.platform_role ? (
                <span className="rounded bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900 dark:bg-amber-950 dark:text-amber-200">
                  {staffProject.platform_role}
                </span>
              ) : null}
              <span>
                {staffProject.team.name} / {staffProject.name}
              </span>
            </p>
          ) : data && data.teams.length && team ? (
            <nav
              aria-label="Team and project"
              className="flex flex-wrap items-center gap-2 text-sm"
            >
              <Switcher
                label="Team"
                testId="team-switcher"
                current={team.name}
                items={data.teams.map((t) => ({
                  href: teamHome(t),
                  label: t.name,
                  current: t.id === team.id,
                }))}
              />
              {billingOnly ? null : (
                <>
                  <span aria-hidden>/</span>
                  <Switcher
                    label="Project"
                    testId="project-switcher"
                    current={memberProject?.name ?? "Choose a project"}
                    items={team.projects.map((p) => ({
                      href: `/console/t/${p.id}${sectionRoot}`,
                      label: p.name,
                      current: p.id === memberProject?.id,
                    }))}
                    footer={{
                      href: `/console/teams/${team.id}/projects${fromQuery}`,
                      label: "All projects of this team",
                      current: false,
                    }}
                  />
                </>
              )}
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
      <div className="mx-auto flex max-w-7xl flex-col gap-6 px-4 py-6 md:flex-row">
        <nav
          id="console-nav"
          aria-label="Console"
          className={`${open ? "block" : "hidden"} rounded-md border border-slate-200 p-2 md:block md:w-52 md:shrink-0 md:border-0 md:p-0 dark:border-slate-800`}
        >
          {project ? (
            <>
              <p className="px-3 pb-1 text-xs font-semibold text-slate-500 uppercase">Project</p>
              {[
                ["overview", "Overview"],
                ["stations", "Stations"],
                ["locations", "Locations"],
                ["transactions", "Transactions"],
                ["sessions", "Charging sessions"],
                ["events", "Events"],
                ["webhooks", "Webhooks"],
                ["ocpp-domains", "OCPP domains"],
                ["tariffs", "Tariffs"],
                ["bills", "Bills"],
                ["payments", "Payments"],
                ["payment-account", "Payment account"],
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
              {billingOnly ? null : (
                <>
                  <NavLink href={`/console/teams/${team.id}/projects${fromQuery}`}>
                    Projects
                  </NavLink>
                  <NavLink href={`/console/teams/${team.id}/members${fromQuery}`}>
                    Members and invites
                  </NavLink>
                </>
              )}
              {BILLING_READERS.includes(team.role ?? "") ? (
                <NavLink href={`/console/teams/${team.id}/billing${fromQuery}`}>Billing</NavLink>
              ) : null}
            </>
          ) : null}
          <p className="mt-4 px-3 pb-1 text-xs font-semibold text-slate-500 uppercase">You</p>
          <NavLink href="/console/sandbox">Sandbox</NavLink>
          <NavLink href="/console/invites">Invitations</NavLink>
        </nav>
        <main className="min-w-0 flex-1">
          {teamMatch && team ? (
            <div className="mb-4 flex flex-wrap items-center justify-between gap-2 text-sm">
              <nav aria-label="Breadcrumb" data-testid="team-breadcrumb">
                <ol className="flex flex-wrap items-center gap-1">
                  <li>
                    <span className="text-slate-600 dark:text-slate-400">Team </span>
                    <Link
                      href={`/console/teams/${team.id}/${billingOnly ? "billing" : "projects"}${fromQuery}`}
                      className="inline-block py-0.5 text-teal-800 underline dark:text-teal-300"
                    >
                      {team.name}
                    </Link>
                  </li>
                  {teamPage ? (
                    <li aria-current="page">
                      <span aria-hidden className="px-1 text-slate-500">
                        /
                      </span>
                      {teamPage}
                    </li>
                  ) : null}
                </ol>
              </nav>
              {contextProject && context && !billingOnly ? (
                <Link
                  href={context.path}
                  data-testid="back-to-project"
                  className="inline-block py-0.5 text-teal-800 underline dark:text-teal-300"
                >
                  ← Back to {contextProject.name}
                </Link>
              ) : null}
            </div>
          ) : null}
          {showBanner && team ? (
            <StandingBanner
              profile={standing.data!}
              billingLink={`/console/teams/${team.id}/billing${fromQuery}`}
            />
          ) : null}
          {children}
        </main>
      </div>
    </div>
  );
}
