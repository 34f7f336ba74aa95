"use client";

import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { Scope } from "@/server/access/scopes";
import type { AppRouter } from "@/server/trpc/router";
import { useTRPC } from "./trpc";

/** The signed-in person, their teams, roles and scopes (`me`). */
export type MeContext = inferRouterOutputs<AppRouter>["me"];
/** The signed-in person's standing in one project (`project`), as /v1 judges it. */
export type ProjectAccess = inferRouterOutputs<AppRouter>["project"];

export function useMe() {
  const trpc = useTRPC();
  return useQuery(trpc.me.queryOptions());
}

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
  const data = access.data;
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
    denied: (scope: Scope) =>
      scopes.has(scope) ? null : `Your role (${who}) does not grant ${scope}.`,
    can: (scope: Scope) => scopes.has(scope),
  };
}
