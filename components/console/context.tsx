"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "./trpc";

export type MeContext = {
  user: { id: number; email: string; name: string | null; platform_role: string | null };
  teams: {
    id: number;
    name: string;
    role: string | null;
    projects: { id: number; name: string; scopes: string[] }[];
  }[];
  pending_invites: number;
};

export function useMe() {
  const trpc = useTRPC();
  return useQuery(trpc.me.queryOptions());
}

/** The signed-in person's standing in a project: its team, their role and scopes. */
export function useProject(tenantId: number) {
  const me = useMe();
  const data = me.data as MeContext | undefined;
  const team = data?.teams.find((t) => t.projects.some((p) => p.id === tenantId));
  const project = team?.projects.find((p) => p.id === tenantId);
  const scopes = new Set(project?.scopes ?? []);
  return {
    loading: me.isPending,
    team,
    project,
    role: team?.role ?? null,
    /** null when allowed; otherwise why not, for a disabled button's title */
    denied: (scope: string) =>
      scopes.has(scope) ? null : `Your role (${team?.role ?? "none"}) does not grant ${scope}.`,
    can: (scope: string) => scopes.has(scope),
  };
}
