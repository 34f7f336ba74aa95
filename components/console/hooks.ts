"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ConsoleOperation, OperationInput } from "@/server/trpc/router";
import type { CONSOLE_MUTATIONS, CONSOLE_QUERIES } from "@/server/trpc/operations";
import { useTRPC } from "./trpc";

type Query = (typeof CONSOLE_QUERIES)[number];
type Mutation = (typeof CONSOLE_MUTATIONS)[number];

/** A /v1 read as the signed-in person; `T` is the route's documented response shape. */
export function useV1<T>(
  op: Query,
  input: OperationInput,
  options: { refetchInterval?: number; enabled?: boolean } = {},
) {
  const trpc = useTRPC();
  const query = useQuery({ ...trpc.v1[op].queryOptions(input), ...options });
  return { ...query, data: query.data as T | undefined };
}

/** A /v1 change as the signed-in person; every read refreshes after it succeeds. */
export function useV1Mutation<T>(op: Mutation) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const mutation = useMutation(
    trpc.v1[op].mutationOptions({ onSuccess: () => client.invalidateQueries() }),
  );
  return {
    ...mutation,
    data: mutation.data as T | undefined,
    run: (input: OperationInput) => mutation.mutateAsync(input) as Promise<T>,
  };
}

export type { ConsoleOperation };
