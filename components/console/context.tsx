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

export type ProjectAccess = {
  tenant_id: number;
  name: string;
  team: { id: number; name: string };
  role: string | null;
  platform_role: string | null;
  scopes: string[];
  can: { manage_team: boolean; read_team: boolean; manage_project_keys: boolean };
};

/** The signed-in person's standing in one project (as /v1 judges it), or an error if none. */
export function useProjectAccess(tenantId: number | null) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.project.queryOptions({ tenant_id: tenantId ?? 0 }),
    enabled: tenantId !== null && tenantId > 0,
    retry: false,
  });
}

/**
 * The signed-in person's standing in a project: its team, their team role and the scopes their
 * team role and platform role grant there (platform staff who are not members included).
 */
export function useProject(tenantId: number) {
  const access = useProjectAccess(tenantId);
  const data = access.data as ProjectAccess | undefined;
  const scopes = new Set(data?.scopes ?? []);
  const who = data?.role ?? data?.platform_role ?? "none";
  return {
    loading: access.isPending,
    team: data?.team,
    project: data,
    role: data?.role ?? null,
    /** who the person is here, for messages: their team role, else their platform role */
    who,
    /** team-level permissions as /v1 decides them */
    may: data?.can ?? { manage_team: false, read_team: false, manage_project_keys: false },
    /** null when allowed; otherwise why not, for a disabled button's title */
    denied: (scope: string) =>
      scopes.has(scope) ? null : `Your role (${who}) does not grant ${scope}.`,
    can: (scope: string) => scopes.has(scope),
  };
}
