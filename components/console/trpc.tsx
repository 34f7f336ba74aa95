"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/trpc/router";

/** A 4xx from the server (tRPC's `data.httpStatus`): an answer, not a failure to retry. */
export function httpStatusOf(error: unknown): number | null {
  if (typeof error !== "object" || error === null || !("data" in error)) return null;
  const data = error.data;
  if (typeof data !== "object" || data === null || !("httpStatus" in data)) return null;
  const status = data.httpStatus;
  return typeof status === "number" ? status : null;
}
const isAnswer = (error: unknown) => {
  const status = httpStatusOf(error);
  return status !== null && status >= 400 && status < 500;
};

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

export function ConsoleProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            staleTime: 2_000,
            // An answer of the API (not found, forbidden, refused) is final: said at once, not retried.
            retry: (failures, error) => failures < 1 && !isAnswer(error),
            refetchOnWindowFocus: true,
          },
        },
      }),
  );
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc" })] }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/** A fresh Idempotency-Key for one form submission. */
export const newRequestKey = () =>
  `console-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
