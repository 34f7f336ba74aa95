"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { DecorateMutationProcedure, ResolverDef } from "@trpc/tanstack-react-query";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";

/**
 * What each console procedure answers, inferred from the /v1 routes' response schemas (the ones
 * the OpenAPI document shows): `V1["getStation"]` is a station as /v1 serves it.
 */
export type V1 = inferRouterOutputs<AppRouter>["v1"];
/** What each console procedure takes: the route's path values, query, body and Idempotency-Key. */
export type V1Input = inferRouterInputs<AppRouter>["v1"];

/**
 * A /v1 change as the signed-in person (`useV1Mutation(trpc.v1.createLocation)`); every read
 * refreshes after it succeeds. `run` resolves with the route's response.
 */
export function useV1Mutation<TDef extends ResolverDef>(
  procedure: DecorateMutationProcedure<TDef>,
) {
  const client = useQueryClient();
  const mutation = useMutation(
    procedure.mutationOptions({ onSuccess: () => client.invalidateQueries() }),
  );
  return { ...mutation, run: mutation.mutateAsync };
}
