import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { userCaller, type UserCaller } from "../server/access/caller";
import { db } from "../server/db";
import type { ErrorBody } from "../server/http/errors";
import { appRouter } from "../server/trpc/router";

export async function callerOf(userId: number): Promise<UserCaller> {
  const user = await db().user.findUniqueOrThrow({ where: { id: userId } });
  return userCaller(user);
}

/** The console's procedures as one signed-in person calls them, typed as the browser's client is. */
export async function consoleAs(userId: number) {
  return appRouter.createCaller({ caller: await callerOf(userId) });
}

export type WireAnswer = {
  status: number;
  /** the tRPC error code of a failed call (e.g. BAD_REQUEST) */
  code?: string;
  /** the API's error body of a failed call, as `data.apiError` carries it */
  apiError?: ErrorBody["error"] | null;
  data?: unknown;
};

/**
 * One procedure called over /api/trpc as a browser sends it: the input is any JSON, whatever the
 * procedure's types say, so tests can send what a tampered or buggy client would.
 */
export async function overTheWire(
  userId: number | null,
  procedure: string,
  input: unknown,
  kind: "query" | "mutation",
): Promise<WireAnswer> {
  const caller = userId === null ? null : await callerOf(userId);
  const url = new URL(`http://console.test/api/trpc/${procedure}`);
  if (kind === "query" && input !== undefined) url.searchParams.set("input", JSON.stringify(input));
  const req =
    kind === "query"
      ? new Request(url)
      : new Request(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(input),
        });
  const res = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => ({ caller }),
  });
  const body = (await res.json()) as {
    result?: { data: unknown };
    error?: { data: { code: string; apiError: ErrorBody["error"] | null } };
  };
  return {
    status: res.status,
    code: body.error?.data.code,
    apiError: body.error?.data.apiError,
    data: body.result?.data,
  };
}
